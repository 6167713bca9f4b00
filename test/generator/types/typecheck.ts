/**
 * Test helpers for the types stage: JSON values as TypeScript literals, and one batched type-check of many small
 * in-memory source files (one ts-morph Project, one program, one diagnostics call).
 */
import { Project, ts } from "ts-morph";

/** The compiler options generated types must pass under: the project's own strict settings. */
export const STRICT_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: false,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  skipLibCheck: true,
  noEmit: true,
  types: [],
};

/** A TypeScript expression whose value is exactly the JSON value `value` (objects keep `__proto__` as a key). */
export function literal(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return String(value);
    case "number":
      if (Number.isNaN(value)) throw new Error("NaN is not JSON");
      return Number.isFinite(value)
        ? Object.is(value, -0)
          ? "-0"
          : String(value)
        : value > 0
          ? "Infinity"
          : "-Infinity";
    case "string":
      return stringExpression(value);
    case "object":
      if (Array.isArray(value)) return `[${value.map(literal).join(", ")}]`;
      // Computed keys: `{"__proto__": 1}` would set the prototype; `{["__proto__"]: 1}` makes an own property.
      return `{ ${Object.entries(value as Record<string, unknown>)
        .map(([key, member]) => `[${stringExpression(key)}]: ${literal(member)}`)
        .join(", ")} }`;
    default:
      throw new Error(`not a JSON value: ${String(value)}`);
  }
}

function stringExpression(text: string): string {
  return JSON.stringify(text).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** One diagnostic, located by file and 1-based line. */
export interface Finding {
  file: string;
  line: number;
  message: string;
}

/** Type-check `files` (name → source) together in one program; every diagnostic, by file. */
export function typeCheck(files: Record<string, string>, options: ts.CompilerOptions = STRICT_OPTIONS): Finding[] {
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: options });
  for (const [name, source] of Object.entries(files)) project.createSourceFile(name, source);
  return project.getPreEmitDiagnostics().map((diagnostic) => ({
    file: diagnostic.getSourceFile()?.getBaseName() ?? "",
    line: diagnostic.getLineNumber() ?? 0,
    message: ts.flattenDiagnosticMessageText(diagnostic.compilerObject.messageText, "\n"),
  }));
}
