/**
 * What a review runs (the reviewers, the request they are shown), imported by the plugin's
 * `tool.ask` tap the first time a call is actually reviewed (issue 40): a run in which nothing
 * goes to a reviewer never loads it.
 */
export { review, reviewerOf } from "./reviewers";
export { reviewRequestOf } from "./request";
