// One tooltip for all the row actions of a grid. A MUI Tooltip per button
// (two or three a row, 25 to 100 rows a page) was a large share of what a
// page of rows cost to mount; this one follows the pointer and the keyboard
// focus to whichever element carries `data-tip`.
import { Box, Popper } from '@mui/material';
import { alpha } from '@mui/material/styles';
import { useState, type FocusEvent, type PointerEvent, type ReactNode } from 'react';

interface Tip {
  anchor: HTMLElement;
  text: string;
}

function tipOf(target: EventTarget | null): Tip | null {
  const anchor = target instanceof Element ? target.closest<HTMLElement>('[data-tip]') : null;
  const text = anchor?.dataset.tip;
  return anchor && text ? { anchor, text } : null;
}

export function GridTipArea({ children }: { children: ReactNode }) {
  const [tip, setTip] = useState<Tip | null>(null);
  const follow = (event: PointerEvent | FocusEvent) => {
    const next = tipOf(event.target);
    setTip((current) => (current?.anchor === next?.anchor && current?.text === next?.text ? current : next));
  };
  return (
    <Box
      sx={{ display: 'contents' }}
      onPointerOver={follow}
      onPointerLeave={() => setTip(null)}
      onFocus={follow}
      onBlur={() => setTip(null)}
    >
      {children}
      <Popper open={tip !== null && tip.anchor.isConnected} anchorEl={tip?.anchor} placement="bottom" sx={{ zIndex: 'tooltip', pointerEvents: 'none' }}>
        <Box
          role="tooltip"
          data-testid="grid-tip"
          sx={(theme) => ({
            mt: 1,
            px: 1,
            py: 0.5,
            borderRadius: 1,
            bgcolor: alpha(theme.palette.grey[700], 0.92),
            color: 'common.white',
            fontSize: theme.typography.pxToRem(11),
            fontWeight: 500,
            maxWidth: 300,
          })}
        >
          {tip?.text}
        </Box>
      </Popper>
    </Box>
  );
}
