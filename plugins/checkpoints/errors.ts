/**
 * The errors of the checkpoint functions, apart from their code: the package entry exports them
 * (for \`instanceof\`), while the code that throws them (api.ts, rewind.ts, store.ts) loads on the
 * first rewind or listing (rewind-api.ts).
 */
import { UbiquityError } from "../../src/index";

/** A message uuid that names no checkpoint and no message of the session. */
export class CheckpointNotFoundError extends UbiquityError {
  override name = "CheckpointNotFoundError";
}

/** A rewind refused because a run is writing in the folder. */
export class ActiveRunError extends UbiquityError {
  override name = "ActiveRunError";
}
