// Types of examples.mjs for the TypeScript that imports it (the tests).
export interface Example {
  readonly file: string;
  readonly line: number;
  readonly command: string;
  readonly expected: string[];
  readonly start: number;
  readonly end: number;
}
export const SITE: string;
export const ROOT: string;
export function pageExamples(file: string): Example[];
export function allExamples(): Example[];
export function runExample(example: Pick<Example, 'command'>): string[];
export function runExampleAsync(example: Pick<Example, 'command'>): Promise<string[]>;
export function matches(expected: readonly string[], actual: readonly string[]): boolean;
export function realign(expected: readonly string[], actual: readonly string[]): string[] | undefined;
