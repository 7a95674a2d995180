import type { VerificationCheck } from '../../../../core/environment.ts';
import { pythonTuple } from '../../detect/versions.ts';

/** `sys.version_info >= (3, 10)` → `True`; without a minimum the major version, `3`. */
export function pythonVersionCheck(python: string, minimum: string | undefined): VerificationCheck {
  return minimum
    ? {
        command: `${python} -c "import sys; print(sys.version_info >= ${pythonTuple(minimum)})"`,
        expected_output: 'True',
      }
    : { command: `${python} -c "import sys; print(sys.version_info.major)"`, expected_output: '3' };
}

/**
 * "These distributions are installed" (distribution names, not import
 * names). `importlib.metadata` arrived in Python 3.8; older Pythons ask
 * `pkg_resources`, so the check works on every Python the project supports.
 */
export function pythonInstalledChecks(python: string, names: string[]): VerificationCheck[] {
  if (names.length === 0) return [];
  const list = names.map((n) => `'${n}'`).join(', ');
  const modern = 'sys.version_info >= (3, 8)';
  return [
    {
      command: `${python} -c "import sys; m = __import__('importlib.metadata' if ${modern} else 'pkg_resources', fromlist=['_']); v = m.version if ${modern} else m.get_distribution; [v(n) for n in [${list}]]; print('OK')"`,
      expected_output: 'OK',
    },
  ];
}
