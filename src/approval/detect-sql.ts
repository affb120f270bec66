import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';

/**
 * Destructive SQL, looked for only where a database will run it: arguments and stdin of
 * database clients, text piped into them, inline programs, SQL typed at a command position.
 * Quoted prose elsewhere (`git commit -m "DROP TABLE users"`) is not SQL.
 */

const DROP_OBJECTS = new Set(['table', 'database', 'schema', 'keyspace']);
const SQL_HINT = /drop|delete|truncate/i;

const DB_CLIENTS = [
  'psql',
  'pgcli',
  'mysql',
  'mariadb',
  'mycli',
  'sqlite3',
  'sqlite',
  'litecli',
  'duckdb',
  'sqlcmd',
  'osql',
  'isql',
  'sqlplus',
  'clickhouse-client',
  'clickhouse',
  'cockroach',
  'usql',
  'snowsql',
  'cqlsh',
  'trino',
  'presto',
  'impala-shell',
  'beeline',
  'hive',
  'spark-sql',
  'bq',
  'mongo',
  'mongosh',
];

export const DATABASE_CLIENTS: ReadonlySet<string> = new Set(DB_CLIENTS);

function isWordCode(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

/** Finding keys for the destructive statements in `text` (linear, word by word). */
export function sqlHazards(text: string): string[] {
  if (!SQL_HINT.test(text)) return [];
  const lower = text.toLowerCase();
  const keys = new Set<string>();
  let prev1 = '';
  let prev2 = '';
  let deleting = false;
  let where = false;
  const endStatement = (): void => {
    if (deleting && !where) keys.add(DANGEROUS.sqlDelete);
    deleting = false;
    where = false;
    prev1 = '';
    prev2 = '';
  };
  let i = 0;
  while (i < lower.length) {
    const c = lower.charCodeAt(i);
    if (!isWordCode(c)) {
      if (c === 0x3b) endStatement();
      i += 1;
      continue;
    }
    let j = i + 1;
    while (j < lower.length && isWordCode(lower.charCodeAt(j))) j += 1;
    const word = lower.slice(i, j);
    i = j;
    if (
      DROP_OBJECTS.has(word) &&
      (prev1 === 'drop' || (prev2 === 'drop' && (prev1 === 'temporary' || prev1 === 'temp')))
    ) {
      keys.add(DANGEROUS.sqlDrop);
    }
    if (word === 'dropdatabase') keys.add(DANGEROUS.sqlDrop);
    if (prev1 === 'delete' && word === 'from') deleting = true;
    if (word === 'where') where = true;
    if (prev1 === 'truncate') keys.add(DANGEROUS.sqlTruncate);
    prev2 = prev1;
    prev1 = word;
  }
  endStatement();
  return [...keys];
}

function databaseClient(ctx: RuleContext): void {
  for (const arg of ctx.seg.argv) ctx.scanSql(arg);
  for (const redirect of ctx.seg.redirects) {
    if (redirect.body !== undefined) ctx.scanSql(redirect.body);
  }
}

/** `DROP TABLE x;` / `DELETE FROM x;` / `TRUNCATE TABLE x;` typed as a command. */
function bareSql(ctx: RuleContext): void {
  const { verb, argl } = ctx.seg;
  const first = argl[0];
  if (verb === 'truncate' && first !== 'table') return;
  if (verb === 'delete' && first !== 'from') return;
  if (verb === 'drop' && (first === undefined || !DROP_OBJECTS.has(first))) return;
  ctx.scanSql([verb, ...argl].join(' '));
}

export const sqlRules: readonly VerbRules[] = [
  { verbs: DB_CLIENTS, run: databaseClient },
  { verbs: ['drop', 'delete', 'truncate'], run: bareSql },
];
