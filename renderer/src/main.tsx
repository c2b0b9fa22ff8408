import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import 'highlight.js/styles/github-dark.css';
import { App } from './App.js';
import './styles/app.css';
import './styles/changes.css';

const root = document.getElementById('root');
if (!root) throw new Error('renderer/index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
