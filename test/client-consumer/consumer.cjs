// A CommonJS consumer: require() of the package and its subpaths, a list and a cursor walk.
const { createApiClient } = require('@links-clients/client');
const { allClients } = require('@links-clients/client/iterate-clients');

async function main([baseUrl, apiKey, linkId]) {
  const api = createApiClient({ baseUrl, apiKey, retry: false });
  const { data, error } = await api.GET('/api/data/links/{id}', {
    params: { path: { id: linkId } },
  });
  if (error) throw new Error(error.detail);
  const clients = [];
  for await (const client of allClients(api, { linkId }, { limit: 2 })) clients.push(client.id);
  console.log(JSON.stringify({ link: data.id, clients }));
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exit(1);
});
