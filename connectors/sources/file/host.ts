/** The host name the `file` source puts on its events. */
import { hostname } from 'node:os';

/** This machine's name, read once. */
export const LOCAL_HOST = hostname();
