import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import 'highlight.js/styles/github-dark.css';
// The app's styles first: a panel's own css, imported by its component, comes after them.
import './styles/app.css';
import './styles/changes.css';
import { App } from './App.js';
import { panelSlices } from './components/panels.js';
import { startKeel } from './stores/store.js';

startKeel(panelSlices);

const root = document.getElementById('root');
if (!root) throw new Error('renderer/index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
