// Runs inside node: reads commands on fd 3 (a pipe), runs code files in V8's REPL mode, prints end markers.
'use strict';

const fs = require('fs');
const path = require('path');
const inspector = require('inspector');
const vm = require('vm');

const PREFIX = '__INTERP_';
const GROUP = 'interp';
const TAKE = Symbol.for('interp.take');
const RUN = Symbol.for('interp.run');
const DRIVER_FRAME = /node_driver\.js|node:inspector|node:vm/;
const LOCATION = /\(?([^\s()]+):\d+:\d+\)?$/;
const IMPORT_HINT = "Hint: blocks run as scripts, not ES modules; use require(), e.g. const fs = require('fs')";
const SIGNAL_WAIT_MS = 100;
const UNSETTLED = 'Warning: unsettled top-level await: nothing is left running that could settle it';
// Requests whose callbacks a script would wait for (file system, DNS, connecting): a block ends
// after them, not before. Timers, servers, watchers and child processes do not hold a block.
const REQUESTS = new Set(['FSReqCallback', 'FSReqPromise', 'FileHandleCloseReq', 'CloseReq', 'GetAddrInfoReqWrap',
  'GetNameInfoReqWrap', 'QueryReqWrap', 'TCPConnectWrap', 'PipeConnectWrap', 'ShutdownWrap']);

const session = new inspector.Session();
session.connect();
const runner = new vm.Script('globalThis[Symbol.for("interp.run")]()', { filename: 'node_driver.js' });
const blocks = new Set();
let util = null;
let hooks = null;
let input = null;
let call = null;
let waiter = null;
let taken;
let pings = 0;
let signals = 0;
let signalSeen = null;
let drainer = null;
let running = false;
let uncaught = null; // the first error nobody caught while a block ran
let held = ''; // markers not yet written

function inspect(value) {
  util = util || require('util');
  return util.inspect(value, { showProxy: true });
}

function isError(value) {
  util = util || require('util');
  return value instanceof Error || util.types.isNativeError(value);
}

function hidden(key, value) {
  Object.defineProperty(globalThis, key, { value, writable: true, configurable: true, enumerable: false });
}

function write(fd, text, encoding = 'utf8') {
  let data = text;
  let done = 0;
  if (typeof text === 'string') {
    if (encoding === 'utf8') {
      try {
        done = fs.writeSync(fd, text);
      } catch (err) {
        if (err.code !== 'EAGAIN') return;
      }
      if (done === Buffer.byteLength(text)) return;
    }
    data = Buffer.from(text, encoding);
  }
  while (done < data.length) {
    try {
      done += fs.writeSync(fd, data, done);
    } catch (err) {
      if (err.code !== 'EAGAIN') return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  }
}

// A Ctrl-C can stop the code inside a stream's write bookkeeping and leave the stream stuck,
// so terminal output goes straight to the file descriptor, as TTY streams write synchronously anyway.
function directWrites(name, fd) {
  const { get } = Object.getOwnPropertyDescriptor(process, name);
  const direct = function (chunk, encoding, callback) {
    if (typeof encoding === 'function') [callback, encoding] = [encoding, undefined];
    if (typeof chunk !== 'string' && !(chunk instanceof Uint8Array)) {
      return Object.getPrototypeOf(this).write.call(this, chunk, encoding, callback);
    }
    write(fd, chunk, encoding || 'utf8');
    if (typeof callback === 'function') process.nextTick(callback, null);
    return true;
  };
  Object.defineProperty(process, name, {
    configurable: true, enumerable: true,
    get() {
      const stream = get.call(process);
      if (stream.isTTY && !Object.hasOwn(stream, 'write')) stream.write = direct;
      return stream;
    },
  });
}

// With an inspector session connected, node also hands every console call to V8's console,
// which records it for a debugger (a stack trace, the arguments kept alive): printing gets two
// to three times slower. The global console's methods become node's own, which only write.
function plainConsole() {
  const plain = new console.Console({ stdout: process.stdout, stderr: process.stderr });
  for (const key of Object.keys(plain)) {
    if (typeof plain[key] === 'function' && typeof console[key] === 'function') console[key] = plain[key];
  }
}

function valueOf(remote) {
  if (remote.type === 'undefined') return undefined;
  if ('unserializableValue' in remote) {
    const text = remote.unserializableValue;
    return text.endsWith('n') ? BigInt(text.slice(0, -1)) : Number(text);
  }
  if (!remote.objectId) return remote.value;
  taken = undefined;
  session.post('Runtime.callFunctionOn', {
    objectId: remote.objectId,
    functionDeclaration: 'function () { "use strict"; globalThis[Symbol.for("interp.take")](this); }',
  });
  return taken;
}

// The synchronous part runs under breakOnSigint, so Ctrl-C stops a busy loop; while the block
// awaits, SIGINT, a ping (sent only after a Ctrl-C) or an empty event loop ends the wait.
function evaluate(expression) {
  return new Promise((resolve) => {
    let early = null;
    let syncPhase = true;
    const settle = (outcome) => {
      waiter = null;
      input.ref();
      resolve(outcome);
    };
    call = () => session.post('Runtime.evaluate', {
      expression, replMode: true, awaitPromise: true, objectGroup: GROUP,
    }, (err, res) => {
      if (syncPhase) early = { err, res };
      else if (waiter === settle) settle({ err, res });
    });
    try {
      runner.runInThisContext({ breakOnSigint: true });
    } catch (err) {
      const interrupted = err && err.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED';
      if (interrupted) signals++;
      settle(interrupted ? { interrupted: true } : { err });
      return;
    } finally {
      syncPhase = false;
    }
    if (early) return settle(early);
    waiter = settle;
    input.unref();
  });
}

function requestsPending() {
  return process.getActiveResourcesInfo().filter((name) => REQUESTS.has(name)).length;
}

// Waits until no more requests are pending than before the block (one an earlier block left,
// reading a pipe nobody writes, say, must not hold this one), looking again only after a
// callback ran (an async hook, on only while waiting); Ctrl-C or a ping ends the wait.
function settleRequests(before) {
  if (requestsPending() <= before) return Promise.resolve({});
  hooks = hooks || require('async_hooks');
  return new Promise((resolve) => {
    let looking = false;
    const look = () => {
      looking = false;
      if (waiter === settle && requestsPending() <= before) settle({});
    };
    const ran = () => {
      if (!looking) { looking = true; setImmediate(look); }
    };
    const hook = hooks.createHook({ after: ran, destroy: ran, promiseResolve: ran }).enable();
    const settle = (outcome) => {
      hook.disable();
      waiter = null;
      resolve(outcome);
    };
    waiter = settle;
  });
}

function cleanStack(text) {
  const lines = text.split('\n');
  const frame = (line) => /^\s+at /.test(line);
  const user = (line) => blocks.has((LOCATION.exec(line) || [])[1]);
  const out = [];
  for (let i = 0; i < lines.length;) {
    if (!frame(lines[i])) {
      out.push(lines[i++]);
      continue;
    }
    let end = i;
    while (end < lines.length && frame(lines[end])) end++;
    const run = lines.slice(i, end);
    const last = run.findLastIndex(user);
    const kept = run.slice(0, last >= 0 ? last + 1 : run.length).filter((line) => !DRIVER_FRAME.test(line));
    const opens = run[run.length - 1].endsWith(' {') && !kept[kept.length - 1]?.endsWith(' {');
    out.push(...kept);
    if (opens) out[out.length - 1] += ' {';
    i = end;
  }
  return out.join('\n');
}

function describe(error) {
  if (!isError(error)) return `Uncaught ${inspect(error)}`.slice(0, 500);
  let text = error.name;
  try { text = String(error); } catch { /* a hostile toString */ }
  return text.split('\n')[0].slice(0, 500);
}

function hint(error) {
  const text = String(error && error.message);
  if (!text.includes('Cannot use import statement') && !text.includes('dynamic import callback')) return '';
  return `${IMPORT_HINT}\n`;
}

function syntaxError(error, details, name, source) {
  const lines = source.trimEnd().split('\n');
  const row = Math.min(details.lineNumber, lines.length - 1);
  const column = row === details.lineNumber ? details.columnNumber : lines[row].length;
  write(2, `${name}:${row + 1}\n${lines[row]}\n${' '.repeat(column)}^\n\n${describe(error)}\n${hint(error)}`);
  return { status: 'error', error: `${describe(error)} (line ${row + 1})` };
}

function report(outcome, name, source) {
  if (outcome.interrupted) {
    write(2, 'Interrupted\n');
    return { status: 'interrupted' };
  }
  if (outcome.unsettled) {
    write(2, `${UNSETTLED}\n`);
    return { status: 'error', error: UNSETTLED };
  }
  if (outcome.err) {
    write(2, `${cleanStack(inspect(outcome.err))}\n`);
    return { status: 'error', error: describe(outcome.err) };
  }
  const { result, exceptionDetails: details } = outcome.res;
  if (details) {
    const error = valueOf(details.exception || { type: 'undefined' });
    if (error instanceof SyntaxError && !details.stackTrace) return syntaxError(error, details, name, source);
    write(2, `${isError(error) ? '' : 'Uncaught '}${cleanStack(inspect(error))}\n${hint(error)}`);
    return { status: 'error', error: describe(error) };
  }
  const value = valueOf(result);
  if (value !== undefined) write(1, `${inspect(value)}\n`);
  return { status: 'ok' };
}

async function runFile(file) {
  const name = path.basename(file);
  blocks.add(name);
  let source;
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return { status: 'error', error: `cannot read the block: ${err.message}` };
  }
  const outcome = await evaluate(`${source}\n//# sourceURL=${name}`);
  try {
    return report(outcome, name, source);
  } catch (err) {
    write(2, `${inspect(err)}\n`);
    return { status: 'error', error: describe(err) };
  } finally {
    taken = undefined;
    session.post('Runtime.releaseObjectGroup', { objectGroup: GROUP });
  }
}

function onSigint() {
  signals++;
  if (waiter) waiter({ interrupted: true });
  if (signalSeen) signalSeen();
}

// A SIGINT that node's watchdog gets while it stops stays queued and would stop the next
// breakOnSigint run at once; spin briefly under breakOnSigint so it lands here instead.
function drainWatchdog() {
  drainer = drainer || new vm.Script('for (const end = Date.now() + 5; Date.now() < end;);');
  try {
    drainer.runInThisContext({ breakOnSigint: true });
  } catch (err) {
    if (err.code !== 'ERR_SCRIPT_EXECUTION_INTERRUPTED') throw err;
    signals++;
  }
}

// Every ping after the first follows a Ctrl-C: make sure its SIGINT has been delivered and used
// up (or give up after a moment), so that it cannot stop the next block.
async function awaitSignal() {
  if (signals === 0) drainWatchdog();
  if (signals === 0) {
    await new Promise((resolve) => {
      const timer = setTimeout(() => signalSeen(), SIGNAL_WAIT_MS);
      signalSeen = () => {
        clearTimeout(timer);
        signalSeen = null;
        resolve();
      };
    });
  }
  if (signals === 0) drainWatchdog();
  signals = 0;
}

// An error thrown by a callback or a promise rejection nobody handled, while a block runs (or
// right after, before its marker), makes the block an error, as it would end a script.
function onUncaught(err, label) {
  write(2, `${label} ${cleanStack(inspect(err))}\n`);
  if (running && !uncaught) uncaught = `${label} ${isError(err) ? describe(err) : inspect(err)}`.slice(0, 500);
}

async function handle(line) {
  const [kind, token = ''] = line.split(' ', 2);
  const file = line.slice(kind.length + token.length + 2);
  let status = { status: 'ok' };
  try {
    if (kind === 'R' && file) {
      running = true;
      uncaught = null;
      const before = requestsPending();
      status = await runFile(file);
      if (status.status === 'ok' && (await settleRequests(before)).interrupted) {
        status = report({ interrupted: true });
      }
    } else if (kind === 'P' && pings++ > 0) await awaitSignal();
    // Let pending signal and rejection callbacks run, so they belong to this command.
    await new Promise((resolve) => setImmediate(resolve));
  } catch (err) {
    status = { status: 'error', error: `interp driver: ${describe(err)}` };
  } finally {
    if (kind === 'R') running = false;
  }
  if (kind === 'R' && uncaught && status.status === 'ok') status = { status: 'error', error: uncaught };
  // A run's marker waits for the sync marker right behind it: one write, one wake-up.
  held += `${PREFIX}${token}__${JSON.stringify(status)}\n`;
  if (kind === 'R') return;
  write(1, held);
  held = '';
}

function listen() {
  const queue = [];
  let busy = false;
  let pending = '';
  const pump = async () => {
    if (busy) return;
    busy = true;
    while (queue.length) await handle(queue.shift());
    busy = false;
  };
  input = new (require('net').Socket)({ fd: 3, readable: true, writable: false });
  input.setEncoding('utf8');
  input.on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop();
    for (const line of lines.filter((text) => text.trim())) {
      // The base pings during a run only after a Ctrl-C, which node may have swallowed.
      if (line.startsWith('P ') && waiter) waiter({ interrupted: true });
      queue.push(line);
    }
    pump();
  });
  input.on('end', () => process.exit(0));
  input.on('error', () => process.exit(0));
}

// Like the node REPL: require, module, and every built-in module as a lazily loaded global;
// like a script in the working folder: __dirname and __filename (the REPL has neither, and
// path.join(__dirname, 'orders.json') is how scripts read a file next to them).
function addGlobals() {
  const Module = require('module');
  const filename = path.join(process.cwd(), '[interp]');
  const main = new Module(filename);
  main.filename = filename;
  hidden('module', main);
  hidden('exports', main.exports);
  hidden('require', Module.createRequire(filename));
  hidden('__filename', filename);
  hidden('__dirname', path.dirname(filename));
  for (const name of Module.builtinModules) {
    if (name.startsWith('_') || name.includes('/') || name in globalThis) continue;
    Object.defineProperty(globalThis, name, {
      get() { hidden(name, require(name)); return globalThis[name]; },
      set(value) { hidden(name, value); },
      configurable: true, enumerable: false,
    });
  }
}

function main() {
  hidden(TAKE, (value) => { taken = value; });
  hidden(RUN, () => call());
  process.on('SIGINT', onSigint);
  process.on('beforeExit', () => { if (waiter) waiter({ unsettled: true }); });
  process.on('uncaughtException', (err) => onUncaught(err, 'Uncaught'));
  process.on('unhandledRejection', (err) => onUncaught(err, 'Uncaught (in promise)'));
  process.argv.splice(1, 1);
  directWrites('stdout', 1);
  directWrites('stderr', 2);
  plainConsole();
  addGlobals();
  listen();
}

main();
