/** What a stdio server's program loads from the folder it starts in: the process kit's, shared with command hooks. */
export { noteServerPackages, runnerPackages } from "../_kits/process/index";
