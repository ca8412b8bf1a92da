import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 14 §5: every date the console shows goes through one formatter (ui/dates.ts, decision 34).
// Formatting by hand reads the browser's zone (getHours, toLocale…) or a language's own short
// pattern (Intl's 'es' short date has a 2-digit year): such code is refused here.
const SRC = join(__dirname, '..');
const AD_HOC = [
  /\.toLocale(Date|Time)String\(/,
  /Date\([^)]*\)\.toLocaleString\(/,
  /\.toDateString\(/,
  /new Intl\.DateTimeFormat\(/,
  /\.get(FullYear|Month|Date|Hours|Minutes)\(\)/,
  /from 'date-fns'/,
  /\bformatDateBR\(/,
];
/** The schedules calendar formats with date-fns, fed the company's wall clock and the shared patterns. */
const ALLOWED: Record<string, RegExp[]> = { 'pages/schedules/calendar.ts': [/from 'date-fns'/] };

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('console dates', () => {
  it('are formatted only through the shared formatter', () => {
    const found: string[] = [];
    for (const file of sources(SRC)) {
      const name = relative(SRC, file).split('\\').join('/');
      const allowed = ALLOWED[name] ?? [];
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const re of AD_HOC) if (re.test(line) && !allowed.some((a) => a.source === re.source)) found.push(`${name}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
