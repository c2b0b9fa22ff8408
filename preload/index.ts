/**
 * Preload: exposes exactly the typed contract to the renderer, nothing more (no ipcRenderer, no
 * generic send/on). Built as CommonJS because sandboxed preload scripts cannot be ES modules.
 * The contract (KeelApi) comes later; for now only the version.
 */
import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('keel', { version: '0.1.0' });
