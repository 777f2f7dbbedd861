import { diag } from "../model/codes.js";
import type { Session } from "../model/session.js";
import type { Diagnostic } from "../model/types.js";

/**
 * The session ids pi 1.6 accepts from a caller (assertValidSessionId, on create and fork; not on load). The id
 * becomes part of the file name, so anything else also risks odd paths.
 */
const PI_SESSION_ID = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** A header id pi 1.6 would refuse for a new or forked session. A non-string id is header-invalid-id's. */
export function checkSessionId(session: Session): Diagnostic[] {
  const id = session.header?.id as unknown;
  if (typeof id !== "string" || PI_SESSION_ID.test(id)) return [];
  return [diag("session-id-format", session.file, session.headerLine, { id })];
}
