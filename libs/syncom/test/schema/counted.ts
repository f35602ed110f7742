import { ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';

/** How many values Counted has checked: what a type change's judgement read, counted instead of timed. */
export const counted = { visits: 0 };

/** A constraint that counts each value it checks (with `each: true`, each element of a set), and passes strings. */
@ValidatorConstraint({ name: 'counted' })
export class Counted implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    counted.visits++;
    return typeof value === 'string';
  }
}
