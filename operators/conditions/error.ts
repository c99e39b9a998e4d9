/** The build-time error of conditions, in its own module so every condition kind can throw it. */
/** Thrown at build time for a condition that does not compile; `optionPath` names the option. */
export class ConditionError extends Error {
  constructor(
    message: string,
    readonly optionPath?: string,
  ) {
    super(message);
  }
}
