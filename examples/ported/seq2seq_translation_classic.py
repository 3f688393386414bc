"""The earlier version of pytorch/tutorials ``intermediate_source/seq2seq_translation_tutorial.py``
(one sentence at a time, before batching), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/seq2seq_translation_classic.py

An ``EncoderRNN`` stepped one token at a time (``GRU`` sequence first, ``initHidden``), its outputs
written into ``encoder_outputs[ei] = ...`` of a ``zeros`` tensor (``+=`` when evaluating); an
``AttnDecoderRNN`` whose attention is a ``Linear`` over ``cat((embedded[0], hidden[0]), 1)``, then
``softmax``, ``bmm`` of ``unsqueeze(0)``-ed operands, ``attn_combine`` and ``F.relu``; the loss
summed from ``loss = 0`` by ``+=``, teacher forcing chosen by ``random.random()``, greedy steps
that stop at ``decoder_input.item() == EOS_token``; two ``SGD`` optimizers.  ``evaluate`` writes
each step's attention into ``decoder_attentions[di] = decoder_attention.data`` and reads
``decoder_output.data.topk(1)``.  Small: the sentence pairs of ``seq2seq_translation.py``,
``MAX_LENGTH`` 6, 16 hidden units, dropout 0 by default; the lines that differ are in ``README.md``.
"""

import argparse
import random

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt import optim
from local_data import default_dtype
from seq2seq_translation import EOS_token, MAX_LENGTH, SOS_token, indexesFromSentence, prepareData

device = mg.device("cpu")
teacher_forcing_ratio = 0.5


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(EncoderRNN, self).__init__()
        self.hidden_size = hidden_size

        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)

    def forward(self, input, hidden):
        embedded = self.embedding(input).view(1, 1, -1)
        output = embedded
        output, hidden = self.gru(output, hidden)
        return output, hidden

    def initHidden(self):
        return mg.zeros(1, 1, self.hidden_size, device=device)


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size, dropout_p=0.1, max_length=MAX_LENGTH):
        super(AttnDecoderRNN, self).__init__()
        self.hidden_size = hidden_size
        self.output_size = output_size
        self.dropout_p = dropout_p
        self.max_length = max_length

        self.embedding = nn.Embedding(self.output_size, self.hidden_size)
        self.attn = nn.Linear(self.hidden_size * 2, self.max_length)
        self.attn_combine = nn.Linear(self.hidden_size * 2, self.hidden_size)
        self.dropout = nn.Dropout(self.dropout_p)
        self.gru = nn.GRU(self.hidden_size, self.hidden_size)
        self.out = nn.Linear(self.hidden_size, self.output_size)

    def forward(self, input, hidden, encoder_outputs):
        embedded = self.embedding(input).view(1, 1, -1)
        embedded = self.dropout(embedded)

        attn_weights = F.softmax(
            self.attn(mg.cat((embedded[0], hidden[0]), 1)), dim=1)
        attn_applied = mg.bmm(attn_weights.unsqueeze(0),
                              encoder_outputs.unsqueeze(0))

        output = mg.cat((embedded[0], attn_applied[0]), 1)
        output = self.attn_combine(output).unsqueeze(0)

        output = F.relu(output)
        output, hidden = self.gru(output, hidden)

        output = F.log_softmax(self.out(output[0]), dim=1)
        return output, hidden, attn_weights

    def initHidden(self):
        return mg.zeros(1, 1, self.hidden_size, device=device)


def tensorFromSentence(lang, sentence):
    indexes = indexesFromSentence(lang, sentence)
    indexes.append(EOS_token)
    return mg.tensor(indexes, dtype=mg.long, device=device).view(-1, 1)


def tensorsFromPair(input_lang, output_lang, pair):
    input_tensor = tensorFromSentence(input_lang, pair[0])
    target_tensor = tensorFromSentence(output_lang, pair[1])
    return (input_tensor, target_tensor)


def train(input_tensor, target_tensor, encoder, decoder, encoder_optimizer, decoder_optimizer, criterion,
          max_length=MAX_LENGTH):
    encoder_hidden = encoder.initHidden()

    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()

    input_length = input_tensor.size(0)
    target_length = target_tensor.size(0)

    encoder_outputs = mg.zeros(max_length, encoder.hidden_size, device=device)

    loss = 0

    for ei in range(input_length):
        encoder_output, encoder_hidden = encoder(
            input_tensor[ei], encoder_hidden)
        encoder_outputs[ei] = encoder_output[0, 0]

    decoder_input = mg.tensor([[SOS_token]], device=device)

    decoder_hidden = encoder_hidden

    use_teacher_forcing = True if random.random() < teacher_forcing_ratio else False

    if use_teacher_forcing:
        # Teacher forcing: Feed the target as the next input
        for di in range(target_length):
            decoder_output, decoder_hidden, decoder_attention = decoder(
                decoder_input, decoder_hidden, encoder_outputs)
            loss += criterion(decoder_output, target_tensor[di])
            decoder_input = target_tensor[di]  # Teacher forcing

    else:
        # Without teacher forcing: use its own predictions as the next input
        for di in range(target_length):
            decoder_output, decoder_hidden, decoder_attention = decoder(
                decoder_input, decoder_hidden, encoder_outputs)
            topv, topi = decoder_output.topk(1)
            decoder_input = topi.squeeze().detach()  # detach from history as input

            loss += criterion(decoder_output, target_tensor[di])
            if decoder_input.item() == EOS_token:
                break

    loss.backward()

    encoder_optimizer.step()
    decoder_optimizer.step()

    return loss.item() / target_length


def evaluate(encoder, decoder, sentence, input_lang, output_lang, max_length=MAX_LENGTH):
    with mg.no_grad():
        input_tensor = tensorFromSentence(input_lang, sentence)
        input_length = input_tensor.size()[0]
        encoder_hidden = encoder.initHidden()

        encoder_outputs = mg.zeros(max_length, encoder.hidden_size, device=device)

        for ei in range(input_length):
            encoder_output, encoder_hidden = encoder(input_tensor[ei],
                                                     encoder_hidden)
            encoder_outputs[ei] += encoder_output[0, 0]

        decoder_input = mg.tensor([[SOS_token]], device=device)  # SOS

        decoder_hidden = encoder_hidden

        decoded_words = []
        decoder_attentions = mg.zeros(max_length, max_length)

        for di in range(max_length):
            decoder_output, decoder_hidden, decoder_attention = decoder(
                decoder_input, decoder_hidden, encoder_outputs)
            decoder_attentions[di] = decoder_attention.data
            topv, topi = decoder_output.data.topk(1)
            if topi.item() == EOS_token:
                decoded_words.append('<EOS>')
                break
            else:
                decoded_words.append(output_lang.index2word[topi.item()])

            decoder_input = topi.squeeze().detach()

        return decoded_words, decoder_attentions[:di + 1]


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=8)
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    random.seed(1)
    with default_dtype(args.double):
        input_lang, output_lang, pairs = prepareData(args.pairs)
        encoder = EncoderRNN(input_lang.n_words, args.hidden).to(device)
        decoder = AttnDecoderRNN(args.hidden, output_lang.n_words, dropout_p=args.dropout).to(device)
        if init is not None:  # a test hook: records or loads the starting weights
            init('encoder', encoder)
            init('decoder', decoder)
        encoder_optimizer = optim.SGD(encoder.parameters(), lr=args.lr)
        decoder_optimizer = optim.SGD(decoder.parameters(), lr=args.lr)
        training_pairs = [tensorsFromPair(input_lang, output_lang, random.choice(pairs))
                          for i in range(args.iters)]
        criterion = nn.NLLLoss()
        history = []
        for iter in range(1, args.iters + 1):
            input_tensor, target_tensor = training_pairs[iter - 1]
            history.append(train(input_tensor, target_tensor, encoder,
                                 decoder, encoder_optimizer, decoder_optimizer, criterion))
        for pair in pairs[:3]:
            output_words, attentions = evaluate(encoder, decoder, pair[0], input_lang, output_lang)
            print('>', pair[0], '\n<', ' '.join(output_words))
            history += [output_lang.word2index.get(w, EOS_token) for w in output_words]
            history += attentions.flatten().tolist()
    return history, (encoder, decoder)


if __name__ == '__main__':
    main()
