/**
 * One shared function for the way Ajv's standalone code reports its first error.
 *
 * Outside `anyOf`, `oneOf` and the like, Ajv writes every failed check as two statements:
 * `validate20.errors = [{instancePath, schemaPath: "#/…", keyword: "…", params: {…}}]; return false;`. Those
 * error objects are about a third of a validator module, and each is code to parse at load and to compile on a
 * function's first call. Each such pair becomes `return fail(validate20, instancePath, "#/…", "…", {…});`, and
 * {@link FAIL_FUNCTION} builds the same one-error array, its properties in the same order.
 */
import { ts } from "ts-morph";

/** The name of the shared function in a generated module. */
export const FAIL_NAME = "fail";

/** The shared function, declared once in a module whose validators call it. */
export const FAIL_FUNCTION = `/** Records a validator's one error and fails: what Ajv's standalone code writes at each failed check. */
function ${FAIL_NAME}(validate, instancePath, schemaPath, keyword, params) {
validate.errors = [{instancePath, schemaPath, keyword, params}];
return false;
}
`;

/** The properties of an error object as Ajv writes them, in its order. */
const ERROR_PROPERTIES = ["instancePath", "schemaPath", "keyword", "params"];

/** A validator's code with each of its first-error returns calling {@link FAIL_NAME}, and whether any did. */
export function withSharedFailures(code: string): { code: string; calls: boolean } {
  // No parent links: every position and text is asked of the file itself, and a node's text then costs no walk
  // up its ancestors (TypeScript looks for an enclosing JSDoc type when it can).
  const file = ts.createSourceFile("validator.js", code, ts.ScriptTarget.ES2022, false, ts.ScriptKind.JS);
  const edits: Array<{ start: number; end: number; text: string }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isBlock(node) || ts.isSourceFile(node)) {
      const statements = node.statements;
      for (let i = 0; i + 1 < statements.length; i++) {
        const call = failureCall(statements[i] as ts.Statement, statements[i + 1] as ts.Statement, file);
        if (call === undefined) continue;
        edits.push({
          start: (statements[i] as ts.Statement).getStart(file),
          end: (statements[i + 1] as ts.Statement).getEnd(),
          text: call,
        });
        i++;
      }
    }
    node.forEachChild(visit);
  };
  visit(file);
  let rewritten = code;
  for (const { start, end, text } of edits.sort((a, b) => b.start - a.start)) {
    rewritten = rewritten.slice(0, start) + text + rewritten.slice(end);
  }
  return { code: rewritten, calls: edits.length > 0 };
}

/**
 * The `return fail(…)` statement for `name.errors = [{instancePath, schemaPath, keyword, params}]` followed by
 * `return false`, or undefined when the two statements are anything else.
 */
function failureCall(first: ts.Statement, second: ts.Statement, file: ts.SourceFile): string | undefined {
  if (!ts.isReturnStatement(second) || second.expression?.kind !== ts.SyntaxKind.FalseKeyword) return undefined;
  if (!ts.isExpressionStatement(first) || !ts.isBinaryExpression(first.expression)) return undefined;
  const { left, operatorToken, right } = first.expression;
  if (operatorToken.kind !== ts.SyntaxKind.EqualsToken || !ts.isPropertyAccessExpression(left)) return undefined;
  if (!ts.isIdentifier(left.expression) || left.name.text !== "errors") return undefined;
  if (!ts.isArrayLiteralExpression(right) || right.elements.length !== 1) return undefined;
  const error = right.elements[0];
  if (error === undefined || !ts.isObjectLiteralExpression(error)) return undefined;
  const values: string[] = [];
  for (const [i, property] of error.properties.entries()) {
    if (property.name === undefined || !ts.isIdentifier(property.name)) return undefined;
    if (property.name.text !== ERROR_PROPERTIES[i]) return undefined;
    if (ts.isShorthandPropertyAssignment(property)) values.push(property.name.text);
    else if (ts.isPropertyAssignment(property)) values.push(property.initializer.getText(file));
    else return undefined;
  }
  if (values.length !== ERROR_PROPERTIES.length) return undefined;
  return `return ${FAIL_NAME}(${left.expression.text}, ${values.join(", ")});`;
}
