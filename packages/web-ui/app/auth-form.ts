// The sign-in form shown when the API answers 401: one API key, kept for this tab only.
import { field } from './components.js';
import { h } from './dom.js';
import { pageHeading } from './page.js';

/** Renders the form; `onKey` gets the key the reader typed (trimmed, not empty). */
export function renderSignIn(
  root: HTMLElement,
  refused: boolean,
  onKey: (key: string) => void,
): void {
  const input = h('input', {
    type: 'password',
    id: 'api-key',
    name: 'api-key',
    autocomplete: 'current-password',
    required: true,
    spellcheck: 'false',
  });
  const problem = h('p', { class: 'form-error', id: 'sign-in-problem' });
  const form = h(
    'form',
    {
      class: 'card sign-in',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const key = input.value.trim();
        if (key === '') {
          problem.textContent = 'Enter the API key.';
          input.setAttribute('aria-invalid', 'true');
          input.focus();
          return;
        }
        onKey(key);
      },
    },
    field(
      'API key',
      input,
      'The key stays in this browser tab (sessionStorage) and is sent as a Bearer token.',
    ),
    problem,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Sign in')),
  );
  input.setAttribute('aria-errormessage', 'sign-in-problem');
  root.replaceChildren(
    pageHeading('Sign in'),
    h(
      'p',
      null,
      refused
        ? 'The server refused the API key. Enter a valid key.'
        : 'This Junction server needs an API key.',
    ),
    form,
  );
  input.focus();
}
