/** The smallest useful product: the model, the read-only tools and permissions. */
import { definePreset } from "../src/index";

export default definePreset({
  name: "ubiquity:minimal",
  plugins: [],
});
