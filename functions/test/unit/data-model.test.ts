import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * docs/data-model.md must not drift from the one table module (issue 15 §1): every key shape the
 * module spells is documented, and every key shape the document names is one the module spells.
 * A shape is a key with its variable parts as `<>`: `C#${cid}#CT#${pad(id)}` and
 * `C#<cid>#CT#<id padded>` are both `C#<>#CT#<>`.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const tableSource = fs.readFileSync(path.join(root, 'functions/src/table/keys.ts'), 'utf8');
const doc = fs.readFileSync(path.join(root, 'docs/data-model.md'), 'utf8');

const normalize = (shape: string) =>
  shape
    .replace(/<>(<>)+/g, '<>')
    .split('#')
    .map((seg) => (/^\d+$/.test(seg) ? '<>' : seg))
    .join('#');
/** A shape names a key when it has a word of capitals (not an error code or an attribute). */
const isKeyShape = (shape: string) => /[A-Z]{2,}/.test(shape) && !/^ERR_|^[A-Z_]+_[A-Z_]+$/.test(shape);

/** The string and template literals of the table module (not type literals), as shapes. */
function codeShapes(): string[] {
  const file = ts.createSourceFile('keys.ts', tableSource, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isLiteralTypeNode(node) || ts.isImportDeclaration(node)) return;
    // Arguments of calls are not keys (`name.normalize('NFD')`).
    if (ts.isCallExpression(node)) {
      visit(node.expression);
      return;
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text);
    else if (ts.isTemplateExpression(node)) out.push(node.head.text + node.templateSpans.map((s) => `<>${s.literal.text}`).join(''));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return [...new Set(out.map(normalize))].filter(isKeyShape);
}

/** The key shapes the document names in its code spans (`GSI1PK=…` spans name their value). */
function docShapes(): string[] {
  // Placeholders first: `<epoch ms, 13 digits>` holds a comma.
  const spans = [...doc.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.trim().replace(/<[^>]*>/g, '<>').replace(/…/g, '<>'));
  const values = spans.flatMap((s) => s.split(/[,;]\s*/)).map((s) => s.replace(/^[A-Za-z0-9?]+=/, '').trim());
  return [...new Set(values.map(normalize))].filter(
    (v) => isKeyShape(v) && /^[A-Z<]/.test(v) && !/\s/.test(v),
  );
}

const segments = (shape: string) => shape.split('#');
/** Code segment `c` can produce document segment `d`: equal, or `c` is the variable part. */
const produces = (c: string, d: string) => c === d || c === '<>' || (c.includes('<>') && new RegExp(`^${c.split('<>').map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+')}$`).test(d));

describe('docs/data-model.md and the table module', () => {
  const code = codeShapes();
  const documented = docShapes();

  it('reads shapes from both sides', () => {
    expect(code).toEqual(expect.arrayContaining(['C#<>#CT#<>', 'CONTACT', 'MSG#<>']));
    expect(documented).toEqual(expect.arrayContaining(['C#<>#CT#<>', 'CONTACT']));
  });

  it('documents every key shape the table module spells', () => {
    // A code shape may be the start of a documented key (a prefix query, a partition of it).
    const undocumented = code.filter((c) => {
      const cs = segments(c);
      return !documented.some((d) => {
        const ds = segments(d);
        return cs.length <= ds.length && cs.every((seg, i) => produces(seg, ds[i]!) || (i === cs.length - 1 && seg === ''));
      });
    });
    expect(undocumented).toEqual([]);
  });

  it('names only key shapes the table module spells', () => {
    // A documented shape may be the tail of a key (`TKS#<status>` of `C#<cid>#TKS#<status>`).
    // Only shapes with a `#` (single words are attribute names, statuses…), and a match must pin
    // at least one written word of the key, not only its variable parts.
    const unknown = documented.filter((d) => {
      if (!d.includes('#')) return false;
      const ds = segments(d);
      return !code.some((c) => {
        const cs = segments(c);
        for (let start = 0; start + ds.length <= cs.length; start++) {
          const window = cs.slice(start, start + ds.length);
          const fits = ds.every((seg, i) => produces(window[i]!, seg) && (seg !== '<>' || window[i]!.includes('<>')));
          if (fits && ds.some((seg, i) => seg !== '<>' && window[i] === seg)) return true;
        }
        return false;
      });
    });
    expect(unknown).toEqual([]);
  });
});
