import { describe, expect, it } from '@jest/globals';
import { resolvePaths } from '../src/index.js';

describe('resolvePaths', () => {
  it('uses $XDG_CONFIG_HOME/junction when XDG_CONFIG_HOME is set', () => {
    const paths = resolvePaths({ XDG_CONFIG_HOME: '/srv/cfg', HOME: '/home/ann' });
    expect(paths).toEqual({
      configHome: '/srv/cfg/junction',
      configFile: '/srv/cfg/junction/config.yaml',
      databaseFile: '/srv/cfg/junction/junction.db',
      environmentsDir: '/srv/cfg/junction/environments',
      logsDir: '/srv/cfg/junction/logs',
    });
  });

  it('falls back to ~/.config/junction', () => {
    expect(resolvePaths({ HOME: '/home/ann' }).configHome).toBe('/home/ann/.config/junction');
  });

  it('ignores an empty or relative XDG_CONFIG_HOME, as the XDG spec asks', () => {
    expect(resolvePaths({ XDG_CONFIG_HOME: '', HOME: '/home/ann' }).configHome).toBe(
      '/home/ann/.config/junction',
    );
    expect(resolvePaths({ XDG_CONFIG_HOME: 'rel/dir', HOME: '/home/ann' }).configHome).toBe(
      '/home/ann/.config/junction',
    );
  });
});
