// Types of fixstep/relay (src/relay.mjs): the sessions' WebSocket relay for node.
export const RELAY_MAX_PEERS: 64;
export const RELAY_MAX_PACKET: 1200;
export interface RelayOptions {
	/** 0 (default): any free port */
	port?: number;
	/** default 127.0.0.1 */
	host?: string;
	/** an http.Server to attach to instead of listening */
	server?: unknown;
	log?: (line: string) => void;
}
export interface Relay {
	readonly port: number;
	readonly url: string;
	readonly stats: { connections: number; forwarded: number; dropped: number; replaced: number };
	close(): Promise<void>;
}
export function startRelay(options?: RelayOptions): Promise<Relay>;
