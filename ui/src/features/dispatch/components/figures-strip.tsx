import { Box, Paper, Tooltip, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { FIGURES, figureSeries, figureText } from '../lib/figures';
import { useConsoleTopic } from '../hooks/use-console-topic';
import type { ConsoleStore } from '../stores/console-store';
import { Sparkline } from './sparkline';

/** The live figures of the `console` event, each with its last hour. */
export function FiguresStrip({ store }: { store: ConsoleStore }) {
  const { t } = useTranslation();
  useConsoleTopic(store, 'figures');
  const live = store.console;
  return (
    <Box
      data-testid="dispatch-figures"
      // A phone scrolls the row sideways (the map stays in view); a desktop
      // wraps it, so no figure hides past the edge.
      sx={{
        display: 'grid',
        gap: 1,
        pb: 0.5,
        gridAutoFlow: { xs: 'column', md: 'row' },
        gridAutoColumns: { xs: 'minmax(128px, 1fr)', md: 'unset' },
        gridTemplateColumns: { md: 'repeat(auto-fill, minmax(132px, 1fr))' },
        overflowX: { xs: 'auto', md: 'visible' },
      }}
    >
      {FIGURES.map((spec) => {
        const value = live?.figures[spec.key] ?? null;
        const text = figureText(spec.kind, value);
        const bad = typeof value === 'number' && spec.bad?.(value);
        return (
          <Tooltip key={spec.key} title={t(`dispatch.figure.${spec.key}_help`)}>
            <Paper variant="outlined" sx={{ px: 1.25, py: 0.75, minWidth: 0 }} data-testid={`figure-${spec.key}`}>
              <Typography variant="caption" color="text.secondary" noWrap component="div">
                {t(`dispatch.figure.${spec.key}`)}
              </Typography>
              <Typography variant="h6" component="div" sx={{ lineHeight: 1.3, color: bad ? 'error.main' : 'text.primary' }} data-testid="figure-value">
                {t(text.key, text.values)}
              </Typography>
              <Box sx={{ color: bad ? 'error.main' : 'primary.main' }}>
                <Sparkline values={figureSeries(live?.history ?? [], spec.key)} />
              </Box>
            </Paper>
          </Tooltip>
        );
      })}
    </Box>
  );
}
