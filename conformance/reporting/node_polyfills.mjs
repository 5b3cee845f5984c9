// What Allure 3's quality gate needs from Node 22 (Iterator.prototype.toArray), for Node 20,
// which the harness supports: `node --import ./node_polyfills.mjs .../allure/cli.js
// quality-gate ...`, and imported by allure_render.mjs.
const iteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf([].values()));
if (typeof iteratorPrototype.toArray !== "function") {
  Object.defineProperty(iteratorPrototype, "toArray", {
    value() {
      return Array.from({ [Symbol.iterator]: () => this });
    },
    configurable: true,
    writable: true,
  });
}
