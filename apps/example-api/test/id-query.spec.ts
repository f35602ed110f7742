import { idQueryText, parseQuery } from '../src/notes/id-query';

describe('example-api: record ids as query values', () => {
  it('idQueryText writes any id, lone surrogates as WTF-8, and parseQuery reads it back exactly', () => {
    const ids = ['plain', 'a b+c&d=e%f', '笔记', '\u{1F600}', 'b\uD800', '\uDC00x', '\uD800\uD800', 'x\uDBFF\uDFFFy\uDFFF', '\uFFFD'];
    for (const id of ids) {
      const text = idQueryText(id);
      expect(text).toMatch(/^[\x21-\x7e]*$/);
      expect(parseQuery(`after=${text}&limit=2`)).toEqual({ after: id, limit: '2' });
    }
    // A pair stays UTF-8 (encodeURIComponent's), a lone surrogate is WTF-8.
    expect(idQueryText('\u{1F600}\uD800')).toBe('%F0%9F%98%80%ED%A0%80');
  });

  it('parseQuery reads what querystring reads otherwise: + as a space, malformed escapes and invalid UTF-8 as it does', () => {
    expect(parseQuery('a=x+y&b=%&c=%FF&d=%E2%82')).toEqual({ a: 'x y', b: '%', c: '\uFFFD', d: '\uFFFD' });
    expect(parseQuery('a=1&a=2')).toEqual({ a: ['1', '2'] });
  });
});
