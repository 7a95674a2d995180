import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from '../src/slugify.js';

test('lower-cases and joins words with hyphens', () => {
  assert.equal(slugify('Release Notes'), 'release-notes');
});

test('drops accents', () => {
  assert.equal(slugify('Crème Brûlée'), 'creme-brulee');
});

test('drops punctuation and never leaves a hyphen at either end', () => {
  assert.equal(slugify('Hello, World!'), 'hello-world');
  assert.equal(slugify('  -- What is new? --  '), 'what-is-new');
});
