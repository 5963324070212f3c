// Light and dark: the system's choice (prefers-color-scheme) until the reader presses the
// toggle; that choice is remembered in localStorage and set as `<html data-theme>`.
import type { StorageLike } from './api.js';

export type Theme = 'light' | 'dark';

const KEY = 'junction.theme';

function stored(storage: StorageLike): Theme | null {
  try {
    const value = storage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : null;
  } catch {
    return null;
  }
}

/** Applies the remembered theme and wires the toggle button. */
export function setUpTheme(
  button: HTMLButtonElement,
  storage: StorageLike,
  systemDark: MediaQueryList,
): void {
  const root = document.documentElement;
  const effective = (): Theme =>
    (root.dataset.theme as Theme | undefined) ?? (systemDark.matches ? 'dark' : 'light');
  // The button names the theme it switches to: "Light mode" while dark, "Dark mode" while light.
  const show = (): void => {
    const dark = effective() === 'dark';
    button.textContent = dark ? 'Light mode' : 'Dark mode';
    button.title = dark ? 'Switch to the light theme' : 'Switch to the dark theme';
  };
  const choice = stored(storage);
  if (choice) root.dataset.theme = choice;
  show();
  systemDark.addEventListener('change', show);
  button.addEventListener('click', () => {
    const next: Theme = effective() === 'dark' ? 'light' : 'dark';
    root.dataset.theme = next;
    try {
      storage.setItem(KEY, next);
    } catch {
      // Storage may be off (private mode): the choice then lasts for this page only.
    }
    show();
  });
}
