// Render a run's Allure report with its quality gate evaluated (called by html.py).
//
// `allure generate` does not evaluate a quality gate (only `allure run` and `allure
// quality-gate` do), so the report's "Quality Gates" tab would stay empty. This does what
// `allure run` does after its test command: read the results, validate the config's gate,
// hand the results to the report, generate. Node resolves the Allure modules from the
// harness's Node tools folder (the first argument), not from beside this file.
//
// The overview's ring counts what the verdict counts when RING.json is given: Allure draws it
// from every test result (a failing run's one MUST failure beside 470 passing test cases of
// every severity showed a green ring of 99.78 %); the harness hands the MUST checks the
// verdict rests on, by outcome ({"total", "passed", "failed", "broken", "skipped"}), and
// the ring is drawn from them with Allure's own function, in place of its widget.
//
// usage: node allure_render.mjs TOOLS_DIR CONFIG RESULTS_DIR GATE_OUT.json [RING.json]
import "./node_polyfills.mjs";
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const [toolsDir, configPath, resultsDir, gateOut, ringPath] = process.argv.slice(2);
const allureModule = (...path) => pathToFileURL(join(toolsDir, "node_modules", "@allurereport", ...path)).href;

// Allure reads each result and attachment file through a read stream, one file after another:
// an open, reads and a close, each a round trip to Node's thread pool with the process idle
// in between (a full local-mock run: some 3,600 files; 1.4 s reading the results, about 2.5 s
// embedding the attachments, half of it idle). The same bytes read at once, as the same
// Buffer, string or JSON, with the same answer for a missing file (undefined). An Allure whose
// reader is laid out otherwise keeps its own reading: slower, the same report.
const whole = (path) => {
  try {
    return readFileSync(path);
  } catch (error) {
    if (error.code === "ENOENT") return undefined;
    throw error;
  }
};
const readerApi = await import(allureModule("reader-api", "dist", "index.js")).catch(() => ({}));
if (typeof readerApi.PathResultFile?.prototype?.asBuffer === "function") {
  Object.assign(readerApi.PathResultFile.prototype, {
    async asBuffer() { return whole(this.path); },
    async asUtf8String() { return whole(this.path)?.toString("utf-8"); },
    async asJson() { const bytes = whole(this.path); return bytes === undefined ? undefined : JSON.parse(bytes.toString("utf-8")); },
  });
}

const core = await import(allureModule("core", "dist", "index.js"));
const config = await core.readConfig(dirname(configPath), configPath);
const report = new core.AllureReport({ ...config, realTime: false });
await report.start();
await report.readDirectory(resultsDir);
let gate = [];
if (report.hasQualityGate) {
  const trs = await report.store.allTestResults({ includeRetries: false });
  gate = (await report.validate({ trs })).results;
  report.realtimeDispatcher.sendQualityGateResults(gate);
}
await report.done();
await writeFile(gateOut, JSON.stringify(gate.map(({ rule, success, actual, expected, message }) =>
  ({ rule, success, actual, expected, message: message.replace(/\u001b\[[0-9;]*m/g, "") }))));

if (ringPath) {
  // The single file embeds each widget as d("widgets/<name>.json","<base64 JSON>").
  const { getPieChartValues } = await import(allureModule("web-commons", "dist", "charts", "d3pie.js"));
  const index = join(config.output, "index.html");
  const html = await readFile(index, "utf8");
  const widget = /d\("widgets\/pie_chart\.json","[A-Za-z0-9+/=]*"\)/;
  if (widget.test(html)) {
    const ring = Buffer.from(JSON.stringify(getPieChartValues(JSON.parse(await readFile(ringPath, "utf8")))));
    await writeFile(index, html.replace(widget, `d("widgets/pie_chart.json","${ring.toString("base64")}")`));
  } else {
    process.stderr.write("allure_render: no pie_chart widget in the report: its ring counts test cases\n");
  }
}
