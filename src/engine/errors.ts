// The one error type evaluate() throws; the runs module stores it as the failed run's error {code, message}.
import type { ModelErrorCode } from "./providers/openai";

/**
 * output_invalid: the output does not match the output schema (even after a repair request);
 * model_error: the model server could not be reached or answered errors;
 * context_too_large: the documents do not fit the context budget of the chosen policy;
 * no_input_text: the run has no input text to evaluate.
 */
export type EngineErrorCode = ModelErrorCode | "context_too_large" | "no_input_text";

export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "EngineError";
  }
}
