// Runs the Perfetto UI's trace-processor engine (engine_bundle.js and
// trace_processor.wasm, from the UI build in `dir`) under Node.js, as the UI
// runs it in a web worker: the bytes on stdin are the trace processor's RPC
// requests (a TraceProcessorRpcStream) and its replies go to stdout.
//
//   node trace_processor_engine.js <dir of engine_bundle.js>
//
// The bundle runs in a context of its own that looks like a worker: `self`,
// a WorkerGlobalScope, synchronous XHR (which the Emscripten loader uses for
// the .wasm) answered from the directory. Requests wait until the engine has
// set up its RPC buffer (its trace_processor_rpc_init call).
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const dir = process.argv[2];
const log = (...a) => process.stderr.write(a.join(' ') + '\n');
const read = (url) => fs.readFileSync(path.join(dir, path.basename(String(url))));
let signalReady = null;
const ready = new Promise((resolve) => { signalReady = resolve; });

const worker = {
  console: { log, warn: log, error: log, info: log, debug: log },
  setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, queueMicrotask,
  TextDecoder, TextEncoder, URL, performance,
  WorkerGlobalScope: function WorkerGlobalScope() {},
  location: { href: 'file://' + path.join(dir, 'engine_bundle.js') },
  XMLHttpRequest: class {
    open(method, url) { this.url = url; }
    send() {
      const b = read(this.url);
      this.status = 200;
      this.response = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
    }
  },
  tesselEngineReady: () => setImmediate(signalReady),
};
worker.self = worker;
vm.createContext(worker);
// The context's own WebAssembly (errors must be its realm's), told to report
// when the engine's RPC is set up.
vm.runInContext(`(() => {
  const Instance = WebAssembly.Instance;
  WebAssembly.Instance = function (module, imports) {
    const exports = Object.assign({}, new Instance(module, imports).exports);
    const init = exports.trace_processor_rpc_init;
    exports.trace_processor_rpc_init = (...args) => { const r = init(...args); tesselEngineReady(); return r; };
    return { exports };
  };
})()`, worker);
vm.runInContext(fs.readFileSync(path.join(dir, 'engine_bundle.js'), 'utf8'), worker);

const WorkerBytes = vm.runInContext('Uint8Array', worker);
const port = {
  onmessage: null,
  postMessage(bytes) { process.stdout.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)); },
};
worker.onmessage({ data: port }); // the UI hands its worker a MessagePort first
ready.then(() => {
  process.stdin.on('data', (chunk) => {
    const data = new WorkerBytes(chunk.length);
    data.set(chunk);
    port.onmessage({ data });
  });
  process.stdin.on('end', () => process.exit(0));
});
