import { join, resolve } from 'node:path';
import * as ts from 'typescript';

const src = resolve(__dirname, '../../src');
/** Where the declarations seem to sit: in memory only, beside the package's node_modules (@opentelemetry/api resolves). */
const DECL = resolve(__dirname, '../../.declarations-in-memory');

/** The declarations the package ships for the browser entries, emitted in memory from today's sources as the build emits them. */
function emitDeclarations(entries: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const program = ts.createProgram(entries.map((e) => join(src, e)), {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10,
    lib: ['lib.es2022.d.ts'], types: ['node'], strict: true, esModuleInterop: true, experimentalDecorators: true,
    declaration: true, emitDeclarationOnly: true, rootDir: src, outDir: DECL, skipLibCheck: true,
  });
  program.emit(undefined, (file, text) => out.set(resolve(file), text));
  return out;
}

/**
 * A web app's tsconfig has the DOM's lib and no @types/node, and may check
 * the libraries' declarations (`skipLibCheck: false`): the types of
 * `syncom/browser` and `syncom/socket.io` must name nothing of Node's (no
 * `NodeJS` namespace, no `Buffer`), or that app does not compile.
 */
describe('the browser entries\' declarations', () => {
  it('type-check in an app with the DOM lib and without @types/node, skipLibCheck off', () => {
    const declarations = emitDeclarations(['browser.ts', 'socket.io/index.ts', 'host.ts']);
    const app = join(DECL, 'app.ts');
    const appText = [
      "import './host';",
      "import { browserBackend, open, type Storage } from './browser';",
      "import { createSocketIoLink } from './socket.io/index';",
      'export async function start(io: (url: string) => Parameters<typeof createSocketIoLink>[0]): Promise<Storage> {',
      "  return open({ path: 'notes', backend: await browserBackend({ dir: 'notes' }), sync: { connect: (n) => createSocketIoLink(io(n.url)) } });",
      '}',
    ].join('\n');
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: [], strict: true, noEmit: true, skipLibCheck: false,
    };
    const host = ts.createCompilerHost(options);
    const read = (f: string) => (resolve(f) === app ? appText : declarations.get(resolve(f)));
    const fileExists = host.fileExists.bind(host);
    const readFile = host.readFile.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.fileExists = (f) => read(f) !== undefined || (!resolve(f).startsWith(DECL) && fileExists(f));
    host.readFile = (f) => read(f) ?? (resolve(f).startsWith(DECL) ? undefined : readFile(f));
    const directoryExists = host.directoryExists?.bind(host);
    host.directoryExists = (d) => resolve(d).startsWith(DECL) || (directoryExists ? directoryExists(d) : true);
    host.getSourceFile = (f, v, ...rest) => {
      const text = read(f);
      return text === undefined ? getSourceFile(f, v, ...rest) : ts.createSourceFile(f, text, v);
    };
    const program = ts.createProgram([app], options, host);
    const problems = ts.getPreEmitDiagnostics(program).map((d) =>
      `${d.file ? d.file.fileName : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(declarations.size).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });
});
