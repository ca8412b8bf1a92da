import { mountSandboxNetwork, type SandboxRouter } from './http.js';
import { SandboxNetwork, type NetworkOptions } from './network.js';

export { SandboxNetwork, type NetworkOptions } from './network.js';
export { SandboxError } from './validation.js';
export type { ConnectionView } from './devices.js';
export { mountSandboxNetwork, type SandboxRouter } from './http.js';
export * from './protocol.js';

/** Creates the network (state from `opts.dir`) and mounts its API, page and device socket on `router`. */
export function attachSandboxNetwork(router: SandboxRouter, opts: NetworkOptions): SandboxNetwork {
  const network = new SandboxNetwork(opts);
  mountSandboxNetwork(router, network);
  return network;
}
