/**
 * `${VAR}` and `${VAR:-default}` in an MCP entry. The person's own file reads Keel's whole
 * environment (it is theirs, as their shell is). A workspace's file reads only the variables the
 * person allowed for that entry (`keel mcp approve --allow-env VAR`): otherwise a cloned
 * repository could send `${GITHUB_TOKEN}` in a header to any URL. What an entry receives is shown
 * with every value that came from a variable masked (`masked`), never the value.
 */

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** The variables a string refers to, in order, each once. */
export function variablesIn(value: string): string[] {
  return [...new Set([...value.matchAll(REFERENCE)].map((m) => m[1]))];
}

/** Where variables come from for one entry: what it may read, and why another is not given. */
export interface VariableSource {
  env: NodeJS.ProcessEnv;
  /** undefined: every variable of `env` (the person's own file). */
  allowed?: ReadonlySet<string>;
}

export class MissingVariable extends Error {
  constructor(readonly variable: string, readonly where: string, readonly notAllowed: boolean) {
    super(notAllowed
      ? `${where} uses \${${variable}}, which you have not allowed for this server (keel mcp approve --allow-env ${variable})`
      : `${where} uses \${${variable}}, which is not set`);
  }
}

/** The value with its variables filled in; a variable not given and without a default throws MissingVariable. */
export function expand(value: string, source: VariableSource, where: string): string {
  return value.replace(REFERENCE, (_whole, name: string, fallback?: string) => {
    const given = source.allowed === undefined || source.allowed.has(name) ? source.env[name] : undefined;
    if (given !== undefined && given !== '') return given;
    if (fallback !== undefined) return fallback;
    throw new MissingVariable(name, where, source.allowed !== undefined && !source.allowed.has(name));
  });
}

/**
 * The value as the entry will receive it, each variable's value replaced by `«VAR: N characters»`
 * (a default written in the file is shown: it is no secret), or `«VAR: not given»`.
 */
export function masked(value: string, source: VariableSource): string {
  return value.replace(REFERENCE, (_whole, name: string, fallback?: string) => {
    const given = source.allowed === undefined || source.allowed.has(name) ? source.env[name] : undefined;
    if (given !== undefined && given !== '') return `«${name}: ${given.length} characters»`;
    if (fallback !== undefined) return fallback;
    return `«${name}: not given»`;
  });
}
