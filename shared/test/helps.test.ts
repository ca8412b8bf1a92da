import { describe, expect, it } from 'vitest';
import { helpEmbedUrl, helpSchema, MSG, youtubeVideoId } from '../src/index.js';

describe('help video codes (decision 59)', () => {
  it.each([
    ['dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['  a_b-C1d2E3f  ', 'a_b-C1d2E3f'],
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s', 'dQw4w9WgXcQ'],
    ['youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://m.youtube.com/watch?feature=share&v=dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://youtu.be/dQw4w9WgXcQ?si=abc', 'dQw4w9WgXcQ'],
    ['https://www.youtube.com/embed/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?rel=0', 'dQw4w9WgXcQ'],
    ['https://www.youtube.com/shorts/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
  ])('%s → %s', (input, id) => expect(youtubeVideoId(input)).toBe(id));

  it.each([
    [''],
    ['dQw4w9WgXc'],
    ['dQw4w9WgXcQQ'],
    ['dQw4w9WgX Q'],
    ['"><script>'],
    ['https://vimeo.com/123456789'],
    ['https://evil.example/watch?v=dQw4w9WgXcQ'],
    ['https://www.youtube.com.evil.example/watch?v=dQw4w9WgXcQ'],
    ['https://www.youtube.com/watch?v=short'],
    ['javascript:alert(1)'],
  ])('refuses %j', (input) => expect(youtubeVideoId(input)).toBeNull());

  it('embeds on the privacy-enhanced domain', () => {
    expect(helpEmbedUrl('dQw4w9WgXcQ')).toBe('https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ');
  });

  it('stores only the id; title required; a bad code names the video field', () => {
    expect(helpSchema.parse({ title: ' Como abrir um ticket ', video: 'https://youtu.be/dQw4w9WgXcQ' })).toEqual({
      title: 'Como abrir um ticket',
      video: 'dQw4w9WgXcQ',
      description: '',
    });
    const missing = helpSchema.safeParse({ title: '   ', video: 'dQw4w9WgXcQ' });
    expect(missing.error?.issues[0]).toMatchObject({ path: ['title'], message: MSG.obrigatorio });
    const bad = helpSchema.safeParse({ title: 'Vídeo', video: 'not a video' });
    expect(bad.error?.issues[0]).toMatchObject({ path: ['video'], message: MSG.helpVideoInvalid });
  });
});
