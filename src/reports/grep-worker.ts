/**
 * Worker-thread entry of `pisess grep` (started through pool.ts for 1,000 sessions or more): searches the batches of
 * files it is sent with the query it was started with. A separate module so a bundler can emit it as its own file.
 */
import { workerData } from "node:worker_threads";
import type { GrepQuery } from "../ops/grep.js";
import { grepBatch } from "./grep.js";
import { serveBatches } from "./pool.js";

// A RegExp and Sets come through the structured clone as they were.
const query = workerData as GrepQuery;

serveBatches((files) => grepBatch(files, query));
