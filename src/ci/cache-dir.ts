/** Dependency caches live here, inside the project folder (GitLab caches only paths below it). */
export const CACHE_DIR = '.mr-agent-cache';
