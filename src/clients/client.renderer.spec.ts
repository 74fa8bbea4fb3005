import { renderClient } from './client.renderer';

describe('renderClient', () => {
  it.each([true, false])(
    'renders the contract fields in order (isDeleted %s), strings escaped',
    (isDeleted) => {
      const client = {
        id: 'c"1\\ 🙂',
        linkId: "l'1\n",
        isDeleted,
        status: 'pending "review"',
        createdAt: '"2026-01-02T03:04:05.123456"',
        updatedAt: '"2026-01-02T03:04:06"',
      };
      const text = renderClient(client);
      expect(JSON.parse(text)).toEqual({
        ...client,
        createdAt: '2026-01-02T03:04:05.123Z',
        updatedAt: '2026-01-02T03:04:06.000Z',
      });
      expect(Object.keys(JSON.parse(text))).toEqual([
        'id',
        'linkId',
        'isDeleted',
        'status',
        'createdAt',
        'updatedAt',
      ]);
    },
  );
});
