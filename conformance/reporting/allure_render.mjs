// Render a run's Allure report with its quality gate evaluated (called by html.py).
//
// `allure generate` does not evaluate a quality gate (only `allure run` and `allure
// quality-gate` do), so the report's "Quality Gates" tab would stay empty. This does what
// `allure run` does after its test command: read the results, validate the config's gate,
// hand the results to the report, generate. Node resolves the Allure modules from the
// harness's Node tools folder (the first argument), not from beside this file.
//
// usage: node allure_render.mjs TOOLS_DIR CONFIG RESULTS_DIR GATE_OUT.json
import "./node_polyfills.mjs";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const [toolsDir, configPath, resultsDir, gateOut] = process.argv.slice(2);
const core = await import(pathToFileURL(join(toolsDir, "node_modules", "@allurereport", "core", "dist", "index.js")).href);
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
