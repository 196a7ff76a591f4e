"use strict";Object.defineProperty(exports, "__esModule", { value: true });exports.default = void 0;var _default2 = _interopRequireDefault(await jitiImport("ubiquity/presets/default"));
var _nodeFs = await jitiImport("node:fs");function _interopRequireDefault(e) {return e && e.__esModule ? e : { default: e };}
(0, _nodeFs.writeFileSync)("/tmp/ubq-acp-launch-RhMs89/mine-marker", "ran");var _default = exports.default =
_default2.default; /* v9-50d30ac98f03db6f */
