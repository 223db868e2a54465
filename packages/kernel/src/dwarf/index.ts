// DWARF 4/5 reading into a type model (types, variables, functions, inlines).
export * from './constants.js';
export { DieTree, DwarfError, loadDebugSections, type Die, type DebugSections } from './dies.js';
export * from './model.js';
