// The API's schema as introspection gives it, and what the Explorer reads from it: completion
// of fields, arguments and types at the cursor, a light check of unknown fields and arguments,
// and the docs pane's view of a type.

export const introspectionQuery = `query ConsoleIntrospection {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types {
      kind name description
      fields(includeDeprecated: true) { name description args { name description type { ...Ref } } type { ...Ref } }
      inputFields { name description type { ...Ref } }
      enumValues(includeDeprecated: true) { name }
    }
  }
}
fragment Ref on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }`;

/** A type reference as GraphQL writes it: `[Note!]!`. */
export function typeText(ref) {
  if (!ref) return '';
  if (ref.kind === 'NON_NULL') return `${typeText(ref.ofType)}!`;
  if (ref.kind === 'LIST') return `[${typeText(ref.ofType)}]`;
  return ref.name;
}

/** The named type under lists and non-nulls. */
export function namedType(ref) {
  let current = ref;
  while (current && (current.kind === 'NON_NULL' || current.kind === 'LIST')) current = current.ofType;
  return current?.name ?? null;
}

export class Schema {
  constructor(introspection) {
    const schema = introspection.__schema;
    this.types = new Map(schema.types.map((type) => [type.name, type]));
    this.roots = {
      query: schema.queryType?.name,
      mutation: schema.mutationType?.name,
      subscription: schema.subscriptionType?.name,
    };
  }

  field(typeName, fieldName) {
    if (fieldName === '__typename') return { name: '__typename', args: [], type: { kind: 'NON_NULL', ofType: { kind: 'SCALAR', name: 'String' } } };
    return this.types.get(typeName)?.fields?.find((field) => field.name === fieldName) ?? null;
  }

  /** The types a variable may have: scalars, enums and input objects. */
  inputTypes() {
    return [...this.types.values()]
      .filter((type) => ['SCALAR', 'ENUM', 'INPUT_OBJECT'].includes(type.kind) && !type.name.startsWith('__'))
      .map((type) => type.name);
  }
}

/** The tokens of a GraphQL document, with their line and column (from 0); comments and strings
 *  are skipped. */
export function tokenize(text) {
  const tokens = [];
  const pattern = /#[^\n]*|"""[\s\S]*?(?:"""|$)|"(?:[^"\\\n]|\\.)*"?|\.\.\.|[_A-Za-z][_0-9A-Za-z]*|\$[_A-Za-z][_0-9A-Za-z]*|@[_A-Za-z][_0-9A-Za-z]*|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[{}()[\]:=!,|&]|\s+|./g;
  let line = 0;
  let lineStart = 0;
  for (const match of text.matchAll(pattern)) {
    const value = match[0];
    const start = match.index;
    if (/^[_A-Za-z]/.test(value) || /^[{}()[\]:=$@]/.test(value) || value === '...' || value.startsWith('$') || value.startsWith('@')) {
      tokens.push({ value, start, end: start + value.length, line, ch: start - lineStart });
    } else if (value.startsWith('"')) {
      tokens.push({ value: '"', start, end: start + value.length, line, ch: start - lineStart });
    }
    for (let i = value.indexOf('\n'); i >= 0; i = value.indexOf('\n', i + 1)) {
      line += 1;
      lineStart = start + i + 1;
    }
  }
  return tokens;
}

/**
 * Walks `tokens` the way a selection nests: which type each selection set is of, which field
 * each argument list belongs to. Calls `visit(kind, token, context)` for each field name
 * (`field`), argument name (`argument`) and type name (`type`), and returns the context after
 * the last token: `{ type, argumentsOf, inVariables, afterColon }`.
 */
export function walk(schema, tokens, visit = () => {}) {
  const stack = []; // the type of each open selection set (null when unknown)
  let pendingRoot = null;
  let lastField = null; // the field whose selection or arguments come next
  let fragmentType = null;
  let parens = []; // for each open '(': the field whose arguments it holds, or 'variables'
  let valueDepth = 0; // braces and brackets inside argument values
  let operationSeen = false;
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i];
    const next = tokens[i + 1];
    const previous = tokens[i - 1];
    const value = token.value;
    if (parens.length > 0) {
      const inner = parens[parens.length - 1];
      if (value === '(') parens.push({ of: null });
      else if (value === ')') parens.pop();
      else if (value === '{' || value === '[') valueDepth += 1;
      else if (value === '}' || value === ']') valueDepth = Math.max(0, valueDepth - 1);
      else if (/^[_A-Za-z]/.test(value) && valueDepth === 0 && next?.value === ':' && previous?.value !== ':') {
        if (inner.of && inner.of !== 'variables') visit('argument', token, { field: inner.of, type: inner.type });
      } else if (/^[_A-Za-z]/.test(value) && inner.of === 'variables' && previous && [':', '[', '!'].includes(previous.value)) {
        visit('type', token, {});
      }
      continue;
    }
    if (stack.length === 0) {
      if (['query', 'mutation', 'subscription'].includes(value)) {
        pendingRoot = schema?.roots[value] ?? null;
        operationSeen = true;
      } else if (value === 'fragment') {
        pendingRoot = null;
      } else if (value === 'on' && next) {
        pendingRoot = next.value;
        visit('type', next, {});
        i += 1;
      } else if (value === '(') {
        parens.push({ of: 'variables' });
      } else if (value === '{') {
        stack.push(pendingRoot ?? (operationSeen ? null : schema?.roots.query ?? null));
        pendingRoot = null;
        lastField = null;
        operationSeen = false;
      }
      continue;
    }
    const current = stack[stack.length - 1];
    if (value === '{') {
      const type = fragmentType ?? (lastField && current ? namedType(schema?.field(current, lastField)?.type) : null);
      stack.push(type ?? null);
      fragmentType = null;
      lastField = null;
    } else if (value === '}') {
      stack.pop();
      lastField = null;
    } else if (value === '(') {
      parens.push({ of: lastField, type: current });
      valueDepth = 0;
    } else if (value === '...') {
      if (next?.value === 'on' && tokens[i + 2]) {
        fragmentType = tokens[i + 2].value;
        visit('type', tokens[i + 2], {});
        i += 2;
      } else if (next && /^[_A-Za-z]/.test(next.value)) {
        i += 1; // a fragment spread's name
      }
    } else if (/^[_A-Za-z]/.test(value)) {
      if (next?.value === ':') continue; // an alias
      lastField = value;
      visit('field', token, { type: current });
    }
  }
  const open = parens[parens.length - 1];
  return {
    type: stack.length > 0 ? stack[stack.length - 1] : undefined,
    argumentsOf: open && open.of !== 'variables' ? open : null,
    inVariables: open?.of === 'variables',
    afterColon: tokens[tokens.length - 1]?.value === ':',
    valueDepth,
  };
}

/** The problems a light check finds: fields and arguments the schema does not have. Each is
 *  `{ line, ch, length, message }`. */
export function check(schema, text) {
  const problems = [];
  walk(schema, tokenize(text), (kind, token, context) => {
    // Introspection's fields (`__schema`, `__type`) are on every query type.
    if (kind === 'field' && context.type && schema.types.has(context.type) && !token.value.startsWith('__')) {
      if (!schema.field(context.type, token.value)) {
        problems.push({ ...token, length: token.value.length, message: `Type ${context.type} has no field '${token.value}'.` });
      }
    } else if (kind === 'argument' && context.type) {
      const field = schema.field(context.type, context.field);
      if (field && !field.args.some((arg) => arg.name === token.value)) {
        problems.push({
          ...token, length: token.value.length,
          message: `${context.type}.${context.field} has no argument '${token.value}'.`,
        });
      }
    } else if (kind === 'type' && !schema.types.has(token.value)) {
      problems.push({ ...token, length: token.value.length, message: `The schema has no type '${token.value}'.` });
    }
  });
  return problems;
}

/** What may be typed at the end of `before` (the text up to the cursor): `{ items, detail }`,
 *  each item `{ text, detail }`. */
export function completions(schema, before) {
  const tokens = tokenize(before);
  // The word being typed is completed, not walked.
  const last = tokens[tokens.length - 1];
  const typing = last && last.end === before.length && /^[_A-Za-z]/.test(last.value);
  const context = walk(schema, typing ? tokens.slice(0, -1) : tokens);
  if (context.inVariables) {
    return context.afterColon || /[[!:]\s*$/.test(before.slice(0, typing ? last.start : before.length))
      ? schema.inputTypes().map((name) => ({ text: name, detail: schema.types.get(name).kind.toLowerCase() }))
      : [];
  }
  if (context.argumentsOf) {
    if (context.valueDepth > 0 || context.afterColon) return [];
    const field = schema.field(context.argumentsOf.type, context.argumentsOf.of);
    return (field?.args ?? []).map((arg) => ({ text: arg.name, detail: typeText(arg.type) }));
  }
  if (context.type === undefined) {
    return ['query', 'mutation', 'subscription', 'fragment'].map((word) => ({ text: word, detail: 'keyword' }));
  }
  const type = schema.types.get(context.type);
  return [...(type?.fields ?? []).map((field) => ({ text: field.name, detail: typeText(field.type) })),
    { text: '__typename', detail: 'String!' }];
}

/** The kind of the document's first operation: `query`, `mutation` or `subscription`. */
export function operationKind(text) {
  const first = tokenize(text).find((token) => token.value !== '"');
  return ['mutation', 'subscription'].includes(first?.value) ? first.value : 'query';
}
