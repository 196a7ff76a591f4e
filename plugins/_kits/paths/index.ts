/**
 * The paths kit: whether a path lies inside a folder, where it really lands once every symlink is
 * followed, and where the permission engine found a call's paths to lead. Not a plugin: the only
 * file other folders import.
 */
export { isInside, resolveReal } from "./real-path";
export { recordJudged, takeJudged, type JudgedTarget } from "./judged";
