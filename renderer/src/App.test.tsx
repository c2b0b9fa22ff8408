import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { App } from './App.js';

describe('App', () => {
  it('renders the title', () => {
    expect(renderToStaticMarkup(<App />)).toContain('<h1>Keel</h1>');
  });
});
