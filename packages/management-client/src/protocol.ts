// The management platform's protocol, loaded from Junction's own proto/lighthouse.proto (the
// lighthouse.v1 package the reference service speaks; see that file). Loaded once, with the
// field names as written in the .proto (snake_case), enums as their names, longs as strings.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** The .proto shipped with the package; the same from src/ and dist/. */
export function protoFile(): string {
  return fileURLToPath(new URL('../proto/lighthouse.proto', import.meta.url));
}

/** Full gRPC method names, as the platform routes them. */
export const METHODS = {
  managementChannel: '/lighthouse.v1.LighthouseService/ManagementChannel',
  heartbeat: '/lighthouse.v1.LighthouseService/Heartbeat',
  sendRun: '/lighthouse.v1.LighthouseService/SendRun',
} as const;

export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [path.dirname(protoFile())],
};

let loaded: protoLoader.PackageDefinition | undefined;

/** The package definition (parsed once per process). */
export function packageDefinition(): protoLoader.PackageDefinition {
  loaded ??= protoLoader.loadSync(protoFile(), LOADER_OPTIONS);
  return loaded;
}

/** The LighthouseService client constructor and its service definition. */
export function lighthouseService(): {
  Client: grpc.ServiceClientConstructor;
  service: grpc.ServiceDefinition;
} {
  const root = grpc.loadPackageDefinition(packageDefinition()) as unknown as {
    lighthouse: { v1: { LighthouseService: grpc.ServiceClientConstructor } };
  };
  const Client = root.lighthouse.v1.LighthouseService;
  return { Client, service: Client.service };
}
