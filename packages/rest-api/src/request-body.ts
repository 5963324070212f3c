// Reading request bodies: the content type, the JSON parser with the body limit, and the one
// check of a body against its zod schema that answers INVALID_BODY naming the field.
import express, { type RequestHandler } from 'express';
import type { z } from 'zod';
import { RestApiError } from './errors.js';

/** Refuses a body that is not JSON before it is read: 415 UNSUPPORTED_MEDIA_TYPE. */
export function requireJson(): RequestHandler {
  return (req, _res, next): void => {
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type)) {
      next();
      return;
    }
    next(
      new RestApiError(
        'UNSUPPORTED_MEDIA_TYPE',
        type === ''
          ? 'Send the body as JSON with "Content-Type: application/json".'
          : `Content-Type ${JSON.stringify(type)} is not accepted; send the body as JSON with "Content-Type: application/json".`,
        { content_type: type === '' ? null : type },
      ),
    );
  };
}

/** The JSON body parser: objects and arrays only, at most `limit` bytes; the type was checked before. */
function parseJson(limit: number): RequestHandler {
  return express.json({ limit, strict: true, type: () => true });
}

/** A JSON body, required: its content type, then the parser. */
export function jsonBody(limit: number): RequestHandler[] {
  return [requireJson(), parseJson(limit)];
}

// A request without a body has neither Transfer-Encoding nor a Content-Length above 0.
function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * A JSON body that may be left out (`curl -X POST …/approve`): without one, `req.body` is
 * undefined and no content type is asked for; with one, it is checked as `jsonBody` does.
 */
export function optionalJsonBody(limit: number): RequestHandler[] {
  const json = requireJson();
  return [
    (req, res, next): void => {
      if (hasBody(req.headers)) json(req, res, next);
      else next();
    },
    parseJson(limit),
  ];
}

/**
 * The body checked against its schema: INVALID_BODY naming the field at fault (an unknown
 * field, one missing, of the wrong type or value), or the body itself when it is no object.
 */
export function validBody<S extends z.ZodType>(
  body: unknown,
  schema: S,
  example = '{"task": "…", "variables": {"NAME": "value"}}',
): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue?.code === 'unrecognized_keys') {
    const field = issue.keys[0] ?? '';
    throw new RestApiError(
      'INVALID_BODY',
      `Unknown field "${field}" in the body; it takes ${Object.keys((schema as unknown as z.ZodObject).shape).join(', ')}.`,
      { field },
    );
  }
  if (!issue || issue.path.length === 0) {
    throw new RestApiError('INVALID_BODY', `The body must be a JSON object such as ${example}.`, {
      field: '(body)',
    });
  }
  const field = issue.path.map(String).join('.');
  // The field schemas' messages name their field ("task must not be empty").
  throw new RestApiError('INVALID_BODY', `${issue.message}.`, { field });
}
