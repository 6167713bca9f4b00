/**
 * A mistake in a contract, reported to the user as `file#pointer: message` with no stack trace.
 * Every stage throws this (or collects several) for anything the user can fix in their contract.
 */
export class ContractError extends Error {
  override readonly name = "ContractError";

  constructor(
    /** The contract file, as the user named it (relative to the working directory when possible). */
    readonly file: string,
    /** JSON pointer into that file ("" for the whole file). */
    readonly pointer: string,
    message: string,
  ) {
    super(message);
  }

  /** `schemas/get_record.tool.json#/outputSchema/properties/x: message` */
  override toString(): string {
    return `${this.file}#${this.pointer}: ${this.message}`;
  }
}

/** Several contract errors found in one pass, reported together. */
export class ContractErrors extends Error {
  override readonly name = "ContractErrors";

  constructor(readonly errors: readonly ContractError[]) {
    super(errors.map(String).join("\n"));
  }
}

/**
 * Adds what a stage threw to `errors` when it is something the user can fix (one contract error, several, or a
 * list of them), so a run goes on and reports every broken contract; anything else is a fault in toolgate and is
 * thrown on.
 */
export function collectContractErrors(errors: ContractError[], thrown: unknown): void {
  if (thrown instanceof ContractError) errors.push(thrown);
  else if (thrown instanceof ContractErrors) errors.push(...thrown.errors);
  else if (Array.isArray(thrown) && thrown.every((e) => e instanceof ContractError)) errors.push(...thrown);
  else throw thrown;
}

/** The error for a contract that defines a tool another contract file already defines. */
export function duplicateToolError(file: string, tool: string, definedIn: string): ContractError {
  return new ContractError(file, "/name", `the tool ${JSON.stringify(tool)} is already defined in ${definedIn}`);
}
