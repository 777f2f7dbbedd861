/**
 * Worker-thread entry of `pisess ls` (started through pool.ts when every session of a large enough listing is read):
 * summarises the batches of files it is sent. A separate module so a bundler can emit it as its own file.
 */
import { type LsBatch, type LsCandidate, lsBatch } from "./ls.js";
import { serveBatches } from "./pool.js";

serveBatches<LsBatch, LsCandidate>((candidates) => lsBatch(candidates));
