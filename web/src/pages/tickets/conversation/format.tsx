import { Fragment, type ReactNode } from 'react';

/**
 * WhatsApp's inline markers (*bold*, _italic_, ~strike~) as React elements. Everything else stays
 * text: React escapes it, so a message can never inject markup. A marker only counts when it hugs
 * non-space text and does not sit inside a word (as WhatsApp does: 2*3*4 stays as typed).
 */
const MARKERS: Record<string, 'strong' | 'em' | 's'> = { '*': 'strong', _: 'em', '~': 's' };

const isWordChar = (c: string | undefined) => !!c && /[\p{L}\p{N}]/u.test(c);

function formatLine(line: string, keyBase: string): ReactNode[] {
  const out: ReactNode[] = [];
  let plain = '';
  let i = 0;
  let k = 0;
  while (i < line.length) {
    const c = line[i]!;
    const tag = MARKERS[c];
    if (tag && !isWordChar(line[i - 1]) && line[i + 1] && line[i + 1] !== ' ' && line[i + 1] !== c) {
      // Closing marker: the same character, preceded by non-space, not followed by a word char.
      let j = i + 1;
      let end = -1;
      while ((j = line.indexOf(c, j)) !== -1) {
        if (line[j - 1] !== ' ' && !isWordChar(line[j + 1])) {
          end = j;
          break;
        }
        j++;
      }
      if (end > i + 1) {
        if (plain) out.push(plain);
        plain = '';
        const Tag = tag;
        out.push(<Tag key={`${keyBase}-${k++}`}>{formatLine(line.slice(i + 1, end), `${keyBase}-${k}`)}</Tag>);
        i = end + 1;
        continue;
      }
    }
    plain += c;
    i++;
  }
  if (plain) out.push(plain);
  return out;
}

/** A message body as React nodes: markers formatted, line breaks kept. */
export function formatWhatsapp(text: string): ReactNode {
  const lines = text.split('\n');
  return lines.map((line, n) => (
    <Fragment key={n}>
      {formatLine(line, String(n))}
      {n < lines.length - 1 && <br />}
    </Fragment>
  ));
}
