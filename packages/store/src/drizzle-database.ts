// drizzle() from 'drizzle-orm/libsql' imports all of @libsql/client (its remote HTTP and
// WebSocket clients, hrana, ws: about a third of a list command's start) only to build a client
// from a URL, which we never ask it to: we always hand it our client. The same package's public
// subpath 'drizzle-orm/libsql/driver-core' holds what drizzle(client) calls, `construct`,
// without that import; its type file leaves `construct` out, so its type is declared here.
import type { Client } from '@libsql/client';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import * as driverCore from 'drizzle-orm/libsql/driver-core';

type Construct = (client: Client) => LibSQLDatabase & { $client: Client };

const construct = (driverCore as unknown as { construct?: Construct }).construct;

/** drizzle's database over `client`: what `drizzle(client)` from 'drizzle-orm/libsql' gives. */
export function drizzleOver(client: Client): LibSQLDatabase {
  if (typeof construct !== 'function') {
    throw new Error(
      "drizzle-orm/libsql/driver-core no longer exports construct(); use drizzle() from 'drizzle-orm/libsql' in drizzle-database.ts",
    );
  }
  return construct(client);
}
