import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from 'jest';

// One config, one project per lib/app. Tests transpile only, with swc and the
// options in .swcrc (tsconfig.json's emit: CommonJS, ES2022, legacy decorators
// with their metadata, which Nest's injection reads); scripts/register-src.js
// transpiles the child processes with the same file. Type checking is
// `npm run typecheck`'s, which CI runs before jest.
const swcrc = JSON.parse(readFileSync(join(__dirname, '.swcrc'), 'utf8')) as Record<string, unknown>;
const transform: Config['transform'] = {
  '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }],
};
const moduleNameMapper = {
  '^syncom$': '<rootDir>/../../libs/syncom/src/index.ts',
  '^syncom/testing$': '<rootDir>/../../libs/syncom/src/testing/index.ts',
  '^syncom/browser$': '<rootDir>/../../libs/syncom/src/browser.ts',
  '^syncom/socket.io$': '<rootDir>/../../libs/syncom/src/socket.io/index.ts',
  '^syncom/host$': '<rootDir>/../../libs/syncom/src/host.ts',
  '^syncom-nest$': '<rootDir>/../../libs/syncom-nest/src/index.ts',
};

const project = (name: string, dir: string): Config => ({
  displayName: name,
  rootDir: dir,
  testEnvironment: 'node',
  transform,
  moduleNameMapper,
  // Disables the async contexts earlier test files of a worker left enabled (see the file).
  setupFilesAfterEnv: ['<rootDir>/../../scripts/jest-async-contexts.js'],
  testMatch: ['<rootDir>/test/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
});

const config: Config = {
  projects: [
    project('syncom', '<rootDir>/libs/syncom'),
    project('syncom-nest', '<rootDir>/libs/syncom-nest'),
    project('hub', '<rootDir>/apps/hub'),
    project('example-api', '<rootDir>/apps/example-api'),
    project('web', '<rootDir>/apps/web'),
  ],
  testTimeout: 60_000,
  // Both cores: jest's default (cores - 1) runs one worker on CI's two, leaving a core idle while
  // the e2e files wait on sockets and child processes. Measured on a fresh clone: 357 s with 2.
  maxWorkers: 2,
};

export default config;
