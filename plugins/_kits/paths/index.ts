/**
 * The paths kit: whether a path lies inside a folder, and where it really lands once every
 * symlink is followed. Not a plugin: the only file other folders import.
 */
export { isInside, resolveReal } from "./real-path";
