// Every route of the webhook port (8587) in one list, in the order they are mounted: a route
// is one `defineRoute` in its file and one line here.
import { APPROVAL_ROUTES } from './approval-routes.js';
import type { WebhookRoute } from './define-route.js';
import { executeRoute } from './execute-route.js';
import { runStatusRoute } from './run-status-route.js';

export const WEBHOOK_ROUTES: readonly WebhookRoute[] = [
  executeRoute,
  runStatusRoute,
  ...APPROVAL_ROUTES,
];
