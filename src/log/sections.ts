/**
 * GitLab collapsible job-log sections:
 * https://docs.gitlab.com/ci/jobs/job_logs/#custom-collapsible-sections
 */
const ESC = '\u001b[0K';

export interface SectionWriter {
  start(name: string, header: string, options?: { collapsed?: boolean }): void;
  end(name: string): void;
}

function sectionName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_.-]/g, '_');
}

export function createSectionWriter(
  write: (text: string) => void,
  now: () => number = Date.now,
  enabled = true,
): SectionWriter {
  const seconds = () => Math.floor(now() / 1000);
  return {
    start(name, header, options = {}) {
      if (!enabled) return;
      const flag = options.collapsed ? '[collapsed=true]' : '';
      write(`${ESC}section_start:${seconds()}:${sectionName(name)}${flag}\r${ESC}${header}\n`);
    },
    end(name) {
      if (!enabled) return;
      write(`${ESC}section_end:${seconds()}:${sectionName(name)}\r${ESC}\n`);
    },
  };
}
