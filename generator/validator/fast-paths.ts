/**
 * Rewrites of Ajv's standalone code that take work off the path of a valid instance, each keeping every verdict and
 * every error (instance path, schema path, keyword, params) as Ajv reports them.
 *
 * - **Own-property checks.** With `ownProperties`, Ajv guards every read of a named property with
 *   `data.name !== undefined && hasOwnProperty.call(data, "name")`, so that a name such as `constructor` is not found
 *   on the prototype of a parsed object. The instance is JSON: its objects are plain (`JSON.parse` makes them, with
 *   `Object.prototype` as their prototype, or a parser makes them without one), so only a name
 *   `Object.prototype` holds can be found by `data.name` without being an own property. The call is kept for
 *   exactly those names ({@link PROTOTYPE_NAMES}) and dropped for every other.
 * - **Key loops.** `for (const key of Object.keys(data))` builds an array of the keys first; `for (const key in data)`
 *   walks the same own keys in the same order (ECMA-262 `OrdinaryOwnPropertyKeys`) from V8's enumeration cache.
 *   It also walks the prototype's enumerable keys, and `Object.prototype` has none unless a program adds one: each
 *   loop skips a key the object does not own. Where the loop's body is one `if` whose condition only reads the key
 *   (`additionalProperties` and `patternProperties`: the key compared with the declared names, tested against the
 *   patterns), the own check joins that condition after it, so it runs only for a key the body would act on: none,
 *   for an object holding only declared names.
 * - **String lengths.** `maxLength` and `minLength` count code points, one pass over the string
 *   (`codePointLength`). A string has at least half as many code points as UTF-16 units and at most as many, so its
 *   `length` alone decides a string of at most `maxLength` units or of at least twice `minLength`: the count runs
 *   only for the rest.
 * - **Instance paths of calls.** A call of a function of the module (a `$ref`, or a part cut out by `split.ts`)
 *   passes the instance path of the value it checks, `instancePath + "/items/" + i0`, built for every array item
 *   and property even when nothing fails. Each such call passes nothing instead, so the callee reports its errors
 *   from the value it was given; only when it fails does {@link RELOCATE_FUNCTION} put the caller's path in front
 *   of each error's. Paths only ever join as `prefix + rest`, so every error ends with the path it had. When no
 *   code reads the rest of the context (`rootData`, `parentData`, `dynamicAnchors`: Ajv's `$data` and dynamic
 *   references, neither of which a module without them uses), each function takes the context whole and reads its
 *   instance path alone, so a call builds no object for its parameters' defaults.
 */
import { ts } from "ts-morph";

/** The name of the function that puts a call's instance path in front of its errors'. */
export const RELOCATE_NAME = "atPath";

/** The function, declared once in a module whose validators call it. */
export const RELOCATE_FUNCTION = `/** Puts the instance path of a call in front of each error the callee reported, and fails. */
function ${RELOCATE_NAME}(validate, instancePath) {
if (instancePath !== "") for (const error of validate.errors) error.instancePath = instancePath + error.instancePath;
return false;
}
`;

/**
 * Every property `Object.prototype` holds (ECMA-262 section 20.1.3 and Annex B.2.2): a property read by one of these
 * names finds the prototype's value on an object that lacks it, so its own-property check stays.
 */
export const PROTOTYPE_NAMES: ReadonlySet<string> = new Set([
  "constructor",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "toString",
  "valueOf",
  "__proto__",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
]);

/**
 * The name `esm-module.ts` imports Ajv's code point counter under (`ucs2length`), which Ajv calls only for
 * `maxLength` and `minLength`, inside the check that the value is a string.
 */
const CODE_POINT_LENGTH = "codePointLength";

/**
 * The context object Ajv passes to a function of the module, property by property; `dynamicAnchors` follows in
 * 2019-09 and 2020-12.
 */
const CALL_CONTEXT = ["instancePath", "parentData", "parentDataProperty", "rootData", "dynamicAnchors"];

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** A validator's code with the rewrites above applied, and whether it calls {@link RELOCATE_NAME}. */
export function withFastPaths(code: string): { code: string; relocates: boolean } {
  // No parent links: every position and text is asked of the file itself, and a node's text then costs no walk
  // up its ancestors (TypeScript looks for an enclosing JSDoc type when it can).
  const file = ts.createSourceFile("validator.js", code, ts.ScriptTarget.ES2022, false, ts.ScriptKind.JS);
  const hasOwn = boundNames(file, "Object.prototype.hasOwnProperty");
  const counters = boundNames(file, CODE_POINT_LENGTH);
  const stateless = patterns(file);
  const literals = schemaLiterals(file);
  const functions = declaredFunctions(file);
  const anchors = readsDynamicAnchors(file);
  const edits: Edit[] = [];
  const pathless = new Set<ts.Node>();
  let relocates = false;
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node)) {
      const kept = withoutOwnCheck(node, hasOwn, file);
      if (kept !== undefined) {
        edits.push({ start: node.getStart(file), end: node.getEnd(), text: kept });
        return;
      }
      const guarded = lengthGuard(node, counters, file);
      if (guarded !== undefined) {
        edits.push({ start: node.getStart(file), end: node.getEnd(), text: guarded });
        return;
      }
    }
    if (ts.isForOfStatement(node)) {
      edits.push(...ownKeyLoop(node, hasOwn, stateless, literals, file));
    }
    if (ts.isCallExpression(node)) {
      const edit = pathlessCall(node, functions, anchors, file);
      if (edit !== undefined) {
        edits.push(edit);
        pathless.add(node);
        relocates = true;
        return;
      }
    }
    node.forEachChild(visit);
  };
  visit(file);
  if (!readsContext(file, pathless)) edits.push(...file.statements.flatMap((s) => contextParameter(s, file)));
  return { code: applyEdits(code, edits), relocates };
}

/** What a function of the module may take from its context besides the instance path. */
const CONTEXT_VALUES = new Set(CALL_CONTEXT.slice(1));

/**
 * Whether any code but a parameter list, or a call that now passes no context, names a context value (`rootData`,
 * `parentData`, …): a call that still passes them on, or a keyword that reads them.
 */
function readsContext(file: ts.SourceFile, pathless: ReadonlySet<ts.Node>): boolean {
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found || pathless.has(node) || ts.isParameter(node)) return;
    if (ts.isIdentifier(node) && CONTEXT_VALUES.has(node.text)) {
      found = true;
      return;
    }
    node.forEachChild(visit);
  };
  visit(file);
  return found;
}

/**
 * For a function of the module that reads only the instance path of its context, the edits that take the context
 * whole and read that one property, instead of Ajv's destructuring (`{instancePath="", parentData, …}={}`), which
 * builds an object and reads five properties of it on every call; none for any other statement.
 */
function contextParameter(statement: ts.Statement, file: ts.SourceFile): Edit[] {
  if (!ts.isFunctionDeclaration(statement) || statement.body === undefined || statement.parameters.length !== 2) {
    return [];
  }
  const context = statement.parameters[1] as ts.ParameterDeclaration;
  if (!ts.isObjectBindingPattern(context.name)) return [];
  for (const element of context.name.elements) {
    if (!ts.isIdentifier(element.name) || element.propertyName !== undefined || element.dotDotDotToken) return [];
    if (!CALL_CONTEXT.includes(element.name.text)) return [];
  }
  const path = context.name.elements.find((e) => ts.isIdentifier(e.name) && e.name.text === "instancePath");
  if (path?.initializer?.getText(file) !== '""') return [];
  const bodyStart = statement.body.getStart(file) + 1;
  return [
    { start: context.getStart(file), end: context.getEnd(), text: "context" },
    {
      start: bodyStart,
      end: bodyStart,
      text: '\nconst instancePath = context === undefined || context.instancePath === undefined ? "" : context.instancePath;',
    },
  ];
}

/** The code with each edit made; edits that overlap are a fault of this module, not of the schema. */
function applyEdits(code: string, edits: readonly Edit[]): string {
  const ordered = [...edits].sort((a, b) => a.start - b.start);
  for (let i = 1; i < ordered.length; i++) {
    if ((ordered[i - 1] as Edit).end > (ordered[i] as Edit).start) {
      throw new Error(`validator rewrites overlap at offset ${(ordered[i] as Edit).start}`);
    }
  }
  let rewritten = code;
  for (const { start, end, text } of ordered.reverse()) {
    rewritten = rewritten.slice(0, start) + text + rewritten.slice(end);
  }
  return rewritten;
}

/**
 * The names a module binds to a value at its top level: Ajv's `const func0 = Object.prototype.hasOwnProperty;`, or
 * `const func54 = codePointLength;` for a helper the module imports.
 */
function boundNames(file: ts.SourceFile, value: string): Set<string> {
  const names = new Set<string>();
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (
        ts.isIdentifier(declaration.name) &&
        declaration.initializer !== undefined &&
        declaration.initializer.getText(file) === value
      ) {
        names.add(declaration.name.text);
      }
    }
  }
  return names;
}

/** The functions the module declares at its top level (Ajv's `validate10`, `validate11`, …). */
function declaredFunctions(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of file.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name !== undefined) names.add(statement.name.text);
  }
  return names;
}

/**
 * Whether the code reads or writes a dynamic anchor (`dynamicAnchors.name`, for `$dynamicAnchor` and
 * `$dynamicRef`): then a call must pass the caller's anchors on, and keeps its context.
 */
function readsDynamicAnchors(file: ts.SourceFile): boolean {
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (
      (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === "dynamicAnchors"
    ) {
      found = true;
      return;
    }
    node.forEachChild(visit);
  };
  visit(file);
  return found;
}

function unwrap(node: ts.Expression): ts.Expression {
  let inner = node;
  while (ts.isParenthesizedExpression(inner)) inner = inner.expression;
  return inner;
}

/** The object and the property name of `object.name` or `object["name"]`. */
function propertyRead(node: ts.Expression, file: ts.SourceFile): { object: string; name: string } | undefined {
  if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.name)) {
    return { object: node.expression.getText(file), name: node.name.text };
  }
  if (ts.isElementAccessExpression(node) && ts.isStringLiteral(node.argumentExpression)) {
    return { object: node.expression.getText(file), name: node.argumentExpression.text };
  }
  return undefined;
}

/** `read !== undefined` (or `===`, as `operator` says): the property read compared. */
function comparedWithUndefined(node: ts.Expression, operator: ts.SyntaxKind, file: ts.SourceFile) {
  const inner = unwrap(node);
  if (!ts.isBinaryExpression(inner) || inner.operatorToken.kind !== operator) return undefined;
  if (!ts.isIdentifier(inner.right) || inner.right.text !== "undefined") return undefined;
  return propertyRead(inner.left, file);
}

/** `hasOwn.call(object, "name")`: the object and the name, when `hasOwn` is one of `hasOwn`'s names. */
function ownCheck(node: ts.Expression, hasOwn: ReadonlySet<string>, file: ts.SourceFile) {
  const inner = unwrap(node);
  if (!ts.isCallExpression(inner) || inner.arguments.length !== 2) return undefined;
  const callee = inner.expression;
  if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== "call") return undefined;
  if (!ts.isIdentifier(callee.expression) || !hasOwn.has(callee.expression.text)) return undefined;
  const [object, name] = inner.arguments as unknown as [ts.Expression, ts.Expression];
  if (!ts.isStringLiteral(name)) return undefined;
  return { object: object.getText(file), name: name.text };
}

/**
 * The text to keep of `read !== undefined && hasOwn.call(object, "name")` or
 * `(read === undefined) || (!(hasOwn.call(object, "name")))`: the comparison alone, when the name is not one of
 * {@link PROTOTYPE_NAMES}; undefined for any other expression.
 */
function withoutOwnCheck(node: ts.BinaryExpression, hasOwn: ReadonlySet<string>, file: ts.SourceFile) {
  const operator = node.operatorToken.kind;
  let read: { object: string; name: string } | undefined;
  let check: { object: string; name: string } | undefined;
  if (operator === ts.SyntaxKind.AmpersandAmpersandToken) {
    read = comparedWithUndefined(node.left, ts.SyntaxKind.ExclamationEqualsEqualsToken, file);
    check = ownCheck(node.right, hasOwn, file);
  } else if (operator === ts.SyntaxKind.BarBarToken) {
    read = comparedWithUndefined(node.left, ts.SyntaxKind.EqualsEqualsEqualsToken, file);
    const negated = unwrap(node.right);
    if (ts.isPrefixUnaryExpression(negated) && negated.operator === ts.SyntaxKind.ExclamationToken) {
      check = ownCheck(negated.operand, hasOwn, file);
    }
  }
  if (read === undefined || check === undefined) return undefined;
  if (read.object !== check.object || read.name !== check.name || PROTOTYPE_NAMES.has(read.name)) return undefined;
  return node.left.getText(file);
}

/**
 * The edits that turn `for (const key of Object.keys(object))` into `for (const key in object)`, the body first
 * skipping a key the object does not own; none for any other loop.
 */
function ownKeyLoop(
  node: ts.ForOfStatement,
  hasOwn: ReadonlySet<string>,
  stateless: ReadonlySet<string>,
  literals: ReadonlyMap<string, string>,
  file: ts.SourceFile,
): Edit[] {
  const [hasOwnName] = hasOwn;
  if (hasOwnName === undefined || node.awaitModifier !== undefined) return [];
  const keys = node.expression;
  if (!ts.isCallExpression(keys) || keys.arguments.length !== 1 || keys.expression.getText(file) !== "Object.keys") {
    return [];
  }
  const declarations = node.initializer;
  if (!ts.isVariableDeclarationList(declarations) || declarations.declarations.length !== 1) return [];
  const key = (declarations.declarations[0] as ts.VariableDeclaration).name;
  if (!ts.isIdentifier(key) || !ts.isBlock(node.statement)) return [];
  const object = (keys.arguments[0] as ts.Expression).getText(file);
  if (!/^[A-Za-z_$][\w$]*$/.test(object)) return [];
  // Edits that leave the body's text to the edits made inside it: the loop's head, and the own check either joined
  // to the condition of the body's one `if` or as the body's first statement.
  const head = { start: declarations.getStart(file), end: keys.getEnd(), text: `const ${key.text} in ${object}` };
  const owns = `${hasOwnName}.call(${object}, ${key.text})`;
  const [only] = node.statement.statements;
  if (
    node.statement.statements.length === 1 &&
    only !== undefined &&
    ts.isIfStatement(only) &&
    only.elseStatement === undefined &&
    readsOnly(only.expression, hasOwn, stateless, file)
  ) {
    const condition = only.expression;
    const text = withDeclaredNames(condition, key.text, hasOwn, literals, file);
    return [head, { start: condition.getStart(file), end: condition.getEnd(), text: `(${text}) && ${owns}` }];
  }
  const bodyStart = node.statement.getStart(file) + 1;
  return [head, { start: bodyStart, end: bodyStart, text: `\nif(!${owns}) continue;` }];
}

/**
 * The most names a lookup in a schema's `properties` becomes comparisons for. Comparing a key a `for…in` gave with a
 * name is a comparison of two interned strings; the lookup is a call that searches the schema object's names
 * (measured on the corpus: twice as fast a validation for twelve names; past a few dozen, the comparisons add up).
 */
const COMPARED_NAMES = 32;

/** The schema literals of the module by name (Ajv's `const schema31 = {…};`, JSON text on one line). */
function schemaLiterals(file: ts.SourceFile): Map<string, string> {
  const literals = new Map<string, string>();
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const { name, initializer } of statement.declarationList.declarations) {
      if (ts.isIdentifier(name) && initializer !== undefined && ts.isObjectLiteralExpression(initializer)) {
        literals.set(name.text, initializer.getText(file));
      }
    }
  }
  return literals;
}

/**
 * The own names of the object a read of a schema literal reaches (`schema31.properties`,
 * `schema34.oneOf[1].properties`); undefined when the read does not reach a JSON object of the literal.
 */
function literalNames(read: ts.Expression, literals: ReadonlyMap<string, string>): string[] | undefined {
  const path: Array<string | number> = [];
  let at = read;
  for (;;) {
    if (ts.isPropertyAccessExpression(at) && ts.isIdentifier(at.name)) path.unshift(at.name.text);
    else if (ts.isElementAccessExpression(at) && ts.isNumericLiteral(at.argumentExpression)) {
      path.unshift(Number(at.argumentExpression.text));
    } else break;
    at = at.expression;
  }
  const text = ts.isIdentifier(at) ? literals.get(at.text) : undefined;
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  for (const step of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string | number, unknown>)[step];
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  return Object.keys(value);
}

/**
 * A loop condition's text with each `hasOwn.call(schema31.properties, key)` (Ajv's test of a key against more than
 * eight declared names) written as `(key === "a" || key === "b" || …)`: the same answer for a key, which a `for…in`
 * gives as a string, when the schema object holds at most {@link COMPARED_NAMES} names.
 */
function withDeclaredNames(
  condition: ts.Expression,
  key: string,
  hasOwn: ReadonlySet<string>,
  literals: ReadonlyMap<string, string>,
  file: ts.SourceFile,
): string {
  const start = condition.getStart(file);
  const edits: Edit[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.arguments.length === 2 && ts.isPropertyAccessExpression(node.expression)) {
      const { expression: callee, name } = node.expression;
      const [object, argument] = node.arguments as unknown as [ts.Expression, ts.Expression];
      const names =
        name.text === "call" && ts.isIdentifier(callee) && hasOwn.has(callee.text) && argument.getText(file) === key
          ? literalNames(object, literals)
          : undefined;
      if (names !== undefined && names.length > 0 && names.length <= COMPARED_NAMES) {
        const compared = names.map((n) => `${key} === ${JSON.stringify(n)}`).join(" || ");
        edits.push({ start: node.getStart(file) - start, end: node.getEnd() - start, text: `(${compared})` });
        return;
      }
    }
    node.forEachChild(visit);
  };
  visit(condition);
  return applyEdits(condition.getText(file), edits);
}

/**
 * The names the module binds to a regular expression that keeps no state between tests (Ajv's
 * `const pattern4 = new RegExp("…", "u");`: no `g` or `y` flag, so `test` leaves `lastIndex` alone).
 */
function patterns(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const { name, initializer } of statement.declarationList.declarations) {
      if (!ts.isIdentifier(name) || initializer === undefined || !ts.isNewExpression(initializer)) continue;
      if (!ts.isIdentifier(initializer.expression) || initializer.expression.text !== "RegExp") continue;
      const [source, flags] = initializer.arguments ?? [];
      if (source === undefined || !ts.isStringLiteral(source)) continue;
      if (flags !== undefined && !(ts.isStringLiteral(flags) && !/[gy]/.test(flags.text))) continue;
      names.add(name.text);
    }
  }
  return names;
}

/** `name`, `object.name`, `object["name"]`, `object[0]`: a read of a variable or of a property along a path. */
function isPlainRead(node: ts.Expression): boolean {
  if (ts.isIdentifier(node)) return true;
  if (ts.isPropertyAccessExpression(node)) return ts.isIdentifier(node.name) && isPlainRead(node.expression);
  if (ts.isElementAccessExpression(node)) {
    const index = node.argumentExpression;
    return (ts.isStringLiteral(index) || ts.isNumericLiteral(index)) && isPlainRead(node.expression);
  }
  return false;
}

/**
 * Whether evaluating an expression does nothing but read: comparisons, `!`, `&&` and `||` of reads and literals, a
 * test of a stateless pattern, an own-property check. Only then may another check be evaluated before it.
 */
function readsOnly(
  node: ts.Expression,
  hasOwn: ReadonlySet<string>,
  stateless: ReadonlySet<string>,
  file: ts.SourceFile,
): boolean {
  const inner = unwrap(node);
  if (ts.isStringLiteral(inner) || ts.isNumericLiteral(inner) || isPlainRead(inner)) return true;
  if (ts.isPrefixUnaryExpression(inner)) {
    return inner.operator === ts.SyntaxKind.ExclamationToken && readsOnly(inner.operand, hasOwn, stateless, file);
  }
  if (ts.isBinaryExpression(inner)) {
    const operator = inner.operatorToken.kind;
    return (
      (operator === ts.SyntaxKind.BarBarToken ||
        operator === ts.SyntaxKind.AmpersandAmpersandToken ||
        operator === ts.SyntaxKind.EqualsEqualsEqualsToken ||
        operator === ts.SyntaxKind.ExclamationEqualsEqualsToken) &&
      readsOnly(inner.left, hasOwn, stateless, file) &&
      readsOnly(inner.right, hasOwn, stateless, file)
    );
  }
  if (!ts.isCallExpression(inner) || !ts.isPropertyAccessExpression(inner.expression)) return false;
  const { expression: receiver, name } = inner.expression;
  const args = inner.arguments;
  if (!ts.isIdentifier(receiver) || !args.every((arg) => isPlainRead(arg))) return false;
  if (name.text === "test") return stateless.has(receiver.text) && args.length === 1;
  return name.text === "call" && hasOwn.has(receiver.text) && args.length === 2;
}

/**
 * `count(text) > limit` (`maxLength`) as `(text.length > limit && count(text) > limit)`, and `count(text) < limit`
 * (`minLength`) as `(text.length < 2 * limit && count(text) < limit)`, where `count` is one of the module's names for
 * the code point counter and the limit a number written in the code; undefined for any other expression.
 */
function lengthGuard(node: ts.BinaryExpression, counters: ReadonlySet<string>, file: ts.SourceFile) {
  const operator = node.operatorToken.kind;
  const longest = operator === ts.SyntaxKind.GreaterThanToken;
  if (!longest && operator !== ts.SyntaxKind.LessThanToken) return undefined;
  const count = node.left;
  if (!ts.isCallExpression(count) || count.arguments.length !== 1 || !ts.isNumericLiteral(node.right)) {
    return undefined;
  }
  const [text] = count.arguments as unknown as [ts.Expression];
  if (!ts.isIdentifier(count.expression) || !counters.has(count.expression.text) || !isPlainRead(text)) {
    return undefined;
  }
  const limit = Number(node.right.text);
  if (!Number.isSafeInteger(2 * limit) || limit < 0) return undefined;
  const units = `${text.getText(file)}.length`;
  const decided = longest ? `${units} > ${limit}` : `${units} < ${2 * limit}`;
  return `(${decided} && ${node.getText(file)})`;
}

/**
 * `validate11(value, {instancePath: path, parentData, parentDataProperty, rootData})`, a call of a function of the
 * module, as `(validate11(value) || atPath(validate11, path))`; undefined for any other call.
 */
function pathlessCall(
  node: ts.CallExpression,
  functions: ReadonlySet<string>,
  anchors: boolean,
  file: ts.SourceFile,
): Edit | undefined {
  const callee = node.expression;
  if (!ts.isIdentifier(callee) || !functions.has(callee.text) || node.arguments.length !== 2) return undefined;
  const [value, context] = node.arguments as unknown as [ts.Expression, ts.Expression];
  if (!ts.isObjectLiteralExpression(context)) return undefined;
  const size = context.properties.length;
  if (size !== CALL_CONTEXT.length - 1 && !(size === CALL_CONTEXT.length && !anchors)) return undefined;
  let path: string | undefined;
  for (const [i, property] of context.properties.entries()) {
    if (property.name === undefined || !ts.isIdentifier(property.name)) return undefined;
    if (property.name.text !== CALL_CONTEXT[i]) return undefined;
    if (i === 0) {
      if (ts.isShorthandPropertyAssignment(property)) path = property.name.text;
      else if (ts.isPropertyAssignment(property)) path = property.initializer.getText(file);
      else return undefined;
    }
  }
  if (path === undefined) return undefined;
  return {
    start: node.getStart(file),
    end: node.getEnd(),
    text: `(${callee.text}(${value.getText(file)}) || ${RELOCATE_NAME}(${callee.text}, ${path}))`,
  };
}
