import { test } from 'node:test';
import assert from 'node:assert/strict';
import { titleCase } from '../src/title-case.js';

test('capitalises every word but the small ones', () => {
  assert.equal(titleCase('the art of war'), 'The Art of War');
});

test('collapses runs of spaces', () => {
  assert.equal(titleCase('  hello   world '), 'Hello World');
});
