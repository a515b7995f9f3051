import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assigned } from '@/testing/fixtures';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import { hasReceipt, ReceiptButtons } from '../components/receipt-buttons';

afterEach(() => vi.restoreAllMocks());

describe("a trip's receipt", () => {
  it('is offered for paid, complete and charged cancelled trips only', () => {
    expect(hasReceipt({ status: 'PAID', cancellationFee: 0 })).toBe(true);
    expect(hasReceipt({ status: 'COMPLETE' })).toBe(true);
    expect(hasReceipt({ status: 'CANCELLED', cancellationFee: 2.5 })).toBe(true);
    expect(hasReceipt({ status: 'CANCELLED', cancellationFee: 0 })).toBe(false);
    expect(hasReceipt({ status: 'REACHED' })).toBe(false);
    expect(hasReceipt({ status: 'PENDING' })).toBe(false);
    renderWithProviders(<ReceiptButtons booking={assigned({ status: 'STARTED' })} />, { client: seededClient(testUser()) });
    expect(screen.queryByTestId('trip-receipt')).not.toBeInTheDocument();
  });

  it('downloads the PDF the server makes, and opens the page', async () => {
    const asked: string[] = [];
    vi.stubGlobal('fetch', async (input: RequestInfo | URL) => {
      const url = new URL(String(input), 'http://localhost');
      asked.push(`${url.pathname}?${url.searchParams.toString()}`);
      const pdf = url.searchParams.get('format') === 'pdf';
      return new Response(pdf ? '%PDF-1.7' : '<html></html>', {
        headers: pdf
          ? { 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="receipt-ABCDEF.pdf"' }
          : { 'content-type': 'text/html; charset=utf-8' },
      });
    });
    URL.createObjectURL = vi.fn(() => 'blob:receipt');
    URL.revokeObjectURL = vi.fn();
    const saved: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    const opened = vi.spyOn(window, 'open').mockImplementation(() => null);
    const user = userEvent.setup();
    renderWithProviders(<ReceiptButtons booking={assigned({ status: 'COMPLETE' })} />, { client: seededClient(testUser()) });
    await user.click(screen.getByTestId('receipt-pdf'));
    await vi.waitFor(() => expect(saved).toEqual(['receipt-ABCDEF.pdf']));
    await user.click(screen.getByTestId('receipt-view'));
    await vi.waitFor(() => expect(opened).toHaveBeenCalledWith('blob:receipt', '_blank', 'noopener'));
    expect(asked).toEqual(['/api/v1/bookings/booking-1/receipt?format=pdf', '/api/v1/bookings/booking-1/receipt?format=html']);
  });
});
