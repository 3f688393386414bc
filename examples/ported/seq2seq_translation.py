"""pytorch/tutorials ``intermediate_source/seq2seq_translation_tutorial.py`` ("NLP From Scratch:
Translation with a Sequence to Sequence Network and Attention"), ported to minigrad_ckpt by a
mechanical rename.

    python examples/ported/seq2seq_translation.py --epochs 2

An ``EncoderRNN`` (``Embedding`` + ``GRU(batch_first=True)``) and an ``AttnDecoderRNN`` with
Bahdanau attention (``Wa``/``Ua``/``Va`` linears, ``tanh``, a softmax over the source, ``bmm``),
trained with teacher forcing on ``NLLLoss`` of ``log_softmax`` by two ``Adam`` optimizers, batches
drawn by a ``RandomSampler``; ``evaluate`` decodes greedily (``topk(1)``, ``.detach()``).  Small:
the sentence pairs are made here (no ``eng-fra.txt``), ``MAX_LENGTH`` is 6, the hidden size 16,
and dropout is 0 by default (two engines' masks differ); the lines that differ are listed in
``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt import optim
from minigrad_ckpt.utils.data import DataLoader, RandomSampler, TensorDataset
from local_data import default_dtype

device = mg.device("cpu")
SOS_token = 0
EOS_token = 1
MAX_LENGTH = 6


class Lang:
    def __init__(self, name):
        self.name = name
        self.word2index = {}
        self.word2count = {}
        self.index2word = {0: "SOS", 1: "EOS"}
        self.n_words = 2  # Count SOS and EOS

    def addSentence(self, sentence):
        for word in sentence.split(' '):
            self.addWord(word)

    def addWord(self, word):
        if word not in self.word2index:
            self.word2index[word] = self.n_words
            self.word2count[word] = 1
            self.index2word[self.n_words] = word
            self.n_words += 1
        else:
            self.word2count[word] += 1


def sentence_pairs(n, seed):
    """(French, English) sentences made here: the English is the French reversed, word for word."""
    fra = ["je", "suis", "tu", "es", "il", "est", "grand", "petit", "content"]
    eng = {"je": "i", "suis": "am", "tu": "you", "es": "are", "il": "he", "est": "is",
           "grand": "tall", "petit": "small", "content": "happy"}
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(n):
        words = [fra[i] for i in rng.integers(0, len(fra), rng.integers(2, MAX_LENGTH))]
        pairs.append([' '.join(words), ' '.join(eng[w] for w in reversed(words))])
    return pairs


def prepareData(n_pairs):
    pairs = sentence_pairs(n_pairs, seed=0)
    input_lang, output_lang = Lang('fra'), Lang('eng')
    for pair in pairs:
        input_lang.addSentence(pair[0])
        output_lang.addSentence(pair[1])
    return input_lang, output_lang, pairs


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size, dropout_p=0.1):
        super(EncoderRNN, self).__init__()
        self.hidden_size = hidden_size

        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input):
        embedded = self.dropout(self.embedding(input))
        output, hidden = self.gru(embedded)
        return output, hidden


class BahdanauAttention(nn.Module):
    def __init__(self, hidden_size):
        super(BahdanauAttention, self).__init__()
        self.Wa = nn.Linear(hidden_size, hidden_size)
        self.Ua = nn.Linear(hidden_size, hidden_size)
        self.Va = nn.Linear(hidden_size, 1)

    def forward(self, query, keys):
        scores = self.Va(mg.tanh(self.Wa(query) + self.Ua(keys)))
        scores = scores.squeeze(2).unsqueeze(1)

        weights = F.softmax(scores, dim=-1)
        context = mg.bmm(weights, keys)

        return context, weights


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size, dropout_p=0.1):
        super(AttnDecoderRNN, self).__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attention = BahdanauAttention(hidden_size)
        self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
        batch_size = encoder_outputs.size(0)
        decoder_input = mg.empty(batch_size, 1, dtype=mg.long, device=device).fill_(SOS_token)
        decoder_hidden = encoder_hidden
        decoder_outputs = []
        attentions = []

        for i in range(MAX_LENGTH):
            decoder_output, decoder_hidden, attn_weights = self.forward_step(
                decoder_input, decoder_hidden, encoder_outputs
            )
            decoder_outputs.append(decoder_output)
            attentions.append(attn_weights)

            if target_tensor is not None:
                # Teacher forcing: Feed the target as the next input
                decoder_input = target_tensor[:, i].unsqueeze(1)  # Teacher forcing
            else:
                # Without teacher forcing: use its own predictions as the next input
                _, topi = decoder_output.topk(1)
                decoder_input = topi.squeeze(-1).detach()  # detach from history as input

        decoder_outputs = mg.cat(decoder_outputs, dim=1)
        decoder_outputs = F.log_softmax(decoder_outputs, dim=-1)
        attentions = mg.cat(attentions, dim=1)

        return decoder_outputs, decoder_hidden, attentions

    def forward_step(self, input, hidden, encoder_outputs):
        embedded = self.dropout(self.embedding(input))

        query = hidden.permute(1, 0, 2)
        context, attn_weights = self.attention(query, encoder_outputs)
        input_gru = mg.cat((embedded, context), dim=2)

        output, hidden = self.gru(input_gru, hidden)
        output = self.out(output)

        return output, hidden, attn_weights


def indexesFromSentence(lang, sentence):
    return [lang.word2index[word] for word in sentence.split(' ')]


def tensorFromSentence(lang, sentence):
    indexes = indexesFromSentence(lang, sentence)
    indexes.append(EOS_token)
    return mg.tensor(indexes, dtype=mg.long, device=device).view(1, -1)


def get_dataloader(batch_size, n_pairs):
    input_lang, output_lang, pairs = prepareData(n_pairs)

    n = len(pairs)
    input_ids = np.zeros((n, MAX_LENGTH), dtype=np.int32)
    target_ids = np.zeros((n, MAX_LENGTH), dtype=np.int32)

    for idx, (inp, tgt) in enumerate(pairs):
        inp_ids = indexesFromSentence(input_lang, inp)
        tgt_ids = indexesFromSentence(output_lang, tgt)
        inp_ids.append(EOS_token)
        tgt_ids.append(EOS_token)
        input_ids[idx, :len(inp_ids)] = inp_ids
        target_ids[idx, :len(tgt_ids)] = tgt_ids

    train_data = TensorDataset(mg.LongTensor(input_ids).to(device),
                               mg.LongTensor(target_ids).to(device))

    train_sampler = RandomSampler(train_data)
    train_dataloader = DataLoader(train_data, sampler=train_sampler, batch_size=batch_size)
    return input_lang, output_lang, pairs, train_dataloader


def train_epoch(dataloader, encoder, decoder, encoder_optimizer,
                decoder_optimizer, criterion):

    total_loss = 0
    for data in dataloader:
        input_tensor, target_tensor = data

        encoder_optimizer.zero_grad()
        decoder_optimizer.zero_grad()

        encoder_outputs, encoder_hidden = encoder(input_tensor)
        decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden, target_tensor)

        loss = criterion(
            decoder_outputs.view(-1, decoder_outputs.size(-1)),
            target_tensor.view(-1)
        )
        loss.backward()

        encoder_optimizer.step()
        decoder_optimizer.step()

        total_loss += loss.item()

    return total_loss / len(dataloader)


def train(train_dataloader, encoder, decoder, n_epochs, learning_rate=0.001):
    encoder_optimizer = optim.Adam(encoder.parameters(), lr=learning_rate)
    decoder_optimizer = optim.Adam(decoder.parameters(), lr=learning_rate)
    criterion = nn.NLLLoss()

    losses = []
    for epoch in range(1, n_epochs + 1):
        loss = train_epoch(train_dataloader, encoder, decoder, encoder_optimizer, decoder_optimizer, criterion)
        print(f"epoch {epoch} loss {loss:.4f}")
        losses.append(loss)
    return losses


def evaluate(encoder, decoder, sentence, input_lang, output_lang):
    with mg.no_grad():
        input_tensor = tensorFromSentence(input_lang, sentence)

        encoder_outputs, encoder_hidden = encoder(input_tensor)
        decoder_outputs, decoder_hidden, decoder_attn = decoder(encoder_outputs, encoder_hidden)

        _, topi = decoder_outputs.topk(1)
        decoded_ids = topi.squeeze()

        decoded_words = []
        for idx in decoded_ids:
            if idx.item() == EOS_token:
                decoded_words.append('<EOS>')
                break
            decoded_words.append(output_lang.index2word[idx.item()])
    return decoded_words, decoder_attn


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    with default_dtype(args.double):
        input_lang, output_lang, pairs, train_dataloader = get_dataloader(args.batch, args.pairs)
        encoder = EncoderRNN(input_lang.n_words, args.hidden, args.dropout).to(device)
        decoder = AttnDecoderRNN(args.hidden, output_lang.n_words, args.dropout).to(device)
        if init is not None:  # a test hook: records or loads the starting weights
            init('encoder', encoder)
            init('decoder', decoder)
        history = train(train_dataloader, encoder, decoder, args.epochs)

        encoder.eval()
        decoder.eval()
        for pair in pairs[:3]:
            output_words, attentions = evaluate(encoder, decoder, pair[0], input_lang, output_lang)
            print('>', pair[0])
            print('=', pair[1])
            print('<', ' '.join(output_words))
            history += [output_lang.word2index.get(w, EOS_token) for w in output_words]
            history += attentions.flatten().tolist()
    return history, (encoder, decoder)


if __name__ == '__main__':
    main()
