/** The provider token of the app's ExampleConfig. */
export const EXAMPLE_CONFIG = Symbol('EXAMPLE_CONFIG');
