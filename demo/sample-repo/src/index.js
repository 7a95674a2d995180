export { titleCase } from './title-case.js';
export { slugify } from './slugify.js';
